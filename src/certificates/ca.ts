import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import { isUniqueViolation } from '../db/errors.js';
import type { SecretBox } from '../crypto/secret-box.js';
import {
  createCertificateAuthority, createTrustAnchor, exportCertificateAuthority, importCertificateAuthority,
  type CertificateAuthority, type TrustAnchor,
} from '../crypto/pki.js';

/**
 * The service's PKI (decisions §3): a root and an intermediate CA, created on first start and
 * kept sealed in `sealed_secrets`, or supplied by the operator as an exported JSON file
 * (`CA_FILE`), which is then used as it is and never stored.
 */

export interface Pki {
  ca: CertificateAuthority;
  /** The root with its verification caches: what execute verifies `x5c` chains against. */
  anchor: TrustAnchor;
  /** Base64 DER of the root certificate, the one locks trust. */
  rootCertificate: string;
}

const SECRET_NAME = 'pki:ca';
/** Additional data of the sealed value, so it cannot be swapped with another sealed secret. */
const SEAL_CONTEXT = 'pki:ca';

export interface PkiDependencies {
  db: Database;
  box: SecretBox;
  logger: Logger;
  now: () => number;
  config: { caFile?: string | null };
}

function toPki(ca: CertificateAuthority): Pki {
  return { ca, anchor: createTrustAnchor(ca.root.der), rootCertificate: ca.root.der.toString('base64') };
}

async function readStored(deps: PkiDependencies): Promise<CertificateAuthority | null> {
  const row = await deps.db.kysely.selectFrom('sealed_secrets').select('value_sealed').where('name', '=', SECRET_NAME).executeTakeFirst();
  if (!row) return null;
  return importCertificateAuthority(JSON.parse(deps.box.open(row.value_sealed, SEAL_CONTEXT).toString('utf8')));
}

async function readOperatorFile(file: string): Promise<CertificateAuthority> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new Error(`CA_FILE ${file} cannot be read as JSON`, { cause: err });
  }
  return importCertificateAuthority(value);
}

/**
 * The CA: from CA_FILE when configured, else the one stored in the database, else a new one,
 * stored at once. Several instances starting together on one database may each create a CA;
 * only the first insert wins and the others re-read and use it (insert-if-absent, then re-read).
 */
export async function loadCertificateAuthority(deps: PkiDependencies): Promise<Pki> {
  if (deps.config.caFile) return toPki(await readOperatorFile(deps.config.caFile));
  const stored = await readStored(deps);
  if (stored) return toPki(stored);

  const created = await createCertificateAuthority({ name: 'Latchkey', now: deps.now() });
  const sealed = deps.box.seal(JSON.stringify(await exportCertificateAuthority(created)), SEAL_CONTEXT);
  try {
    await deps.db.kysely.insertInto('sealed_secrets').values({ name: SECRET_NAME, value_sealed: sealed, created: deps.now() }).execute();
    deps.logger.info('certificate authority created');
    return toPki(created);
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const winner = await readStored(deps);
    if (!winner) throw new Error('certificate authority vanished after a concurrent creation', { cause: err });
    return toPki(winner);
  }
}
