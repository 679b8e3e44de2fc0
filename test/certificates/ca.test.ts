import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadCertificateAuthority, type PkiDependencies } from '../../src/certificates/ca.js';
import { createCertificateAuthority, exportCertificateAuthority } from '../../src/crypto/pki.js';
import { startTestService, type TestService } from '../helpers/service.js';

describe('certificate authority storage', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(async () => t?.close());

  const deps = (caFile: string | null = null): PkiDependencies => {
    const { db, box, logger, now } = t.service.ctx;
    return { db, box, logger, now, config: { caFile } };
  };

  it('is created on first start, kept sealed, and the same on the next start', async () => {
    const row = await t.service.ctx.db.kysely.selectFrom('sealed_secrets').select('value_sealed').where('name', '=', 'pki:ca').executeTakeFirstOrThrow();
    assert.ok(!row.value_sealed.includes('PRIVATE'));
    assert.ok(!row.value_sealed.includes(t.service.ctx.pki.rootCertificate.slice(0, 40)));
    const again = await loadCertificateAuthority(deps());
    assert.equal(again.rootCertificate, t.service.ctx.pki.rootCertificate);
  });

  it('settles on one CA when instances create it at the same time', async () => {
    await t.service.ctx.db.kysely.deleteFrom('sealed_secrets').where('name', '=', 'pki:ca').execute();
    const loaded = await Promise.all([loadCertificateAuthority(deps()), loadCertificateAuthority(deps()), loadCertificateAuthority(deps())]);
    const stored = await loadCertificateAuthority(deps());
    for (const pki of loaded) assert.equal(pki.rootCertificate, stored.rootCertificate);
  });

  it('uses an operator-supplied CA_FILE as it is', async () => {
    const operator = await createCertificateAuthority({ name: 'Operator', now: Date.now() / 1000 });
    const file = join(t.dataDir, 'ca.json');
    await writeFile(file, JSON.stringify(await exportCertificateAuthority(operator)), { mode: 0o600 });
    const pki = await loadCertificateAuthority(deps(file));
    assert.equal(pki.rootCertificate, operator.root.der.toString('base64'));
    await writeFile(file, '{"version":1}');
    await assert.rejects(loadCertificateAuthority(deps(file)));
  });
});
