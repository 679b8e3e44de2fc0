import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authenticateLockSecret } from '../../src/locks/provision.js';
import { latchkey as runLatchkey, latchkeyProcess } from '../helpers/cli.js';
import { createUser } from '../helpers/factories.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { UNKNOWN_ID, UUID } from './support.js';

describe('latchkey lock provision / site create', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t.close());

  const env = () => ({ ...process.env, DATABASE_URL: t.database.url, DATA_DIR: t.dataDir, LOG_LEVEL: 'silent' });

  /** `latchkey ARGS` against the test service's database and data directory, in this process (test/helpers/cli.ts). */
  const latchkey = (...args: string[]) => runLatchkey(args, env());

  it('creates a site and a lock in it that a user can then claim', async () => {
    const site = await latchkey('site', 'create', '--name', 'Depot', '--colour', '#0A0B0C', '--latitude', '52.2', '--longitude', '0.12', '--radius', '80');
    assert.equal(site.code, 0, site.stderr);
    const siteJson = JSON.parse(site.stdout);
    assert.deepEqual(Object.keys(siteJson).sort(), ['colour', 'created', 'id', 'latitude', 'logoUrl', 'longitude', 'name', 'radius', 'updated']);
    assert.match(siteJson.id, UUID);
    assert.deepEqual([siteJson.name, siteJson.colour, siteJson.latitude, siteJson.longitude, siteJson.radius, siteJson.logoUrl], ['Depot', '#0A0B0C', 52.2, 0.12, 80, null]);

    // The executable itself once: its own process, its exit status and its standard output.
    const provisioned = await latchkeyProcess(['lock', 'provision', '--name', 'Gate', '--site', siteJson.id], env());
    assert.equal(provisioned.code, 0, provisioned.stderr);
    const lock = JSON.parse(provisioned.stdout);
    assert.deepEqual(Object.keys(lock).sort(), ['id', 'registrationKey', 'secret']);
    assert.match(lock.id, UUID);
    assert.ok(Buffer.from(lock.registrationKey, 'base64url').length >= 32);
    assert.ok(Buffer.from(lock.secret, 'base64url').length >= 32);
    assert.notEqual(lock.registrationKey, lock.secret);

    // Only hashes are stored.
    const row = await t.service.ctx.db.kysely.selectFrom('locks').selectAll().where('id', '=', lock.id).executeTakeFirstOrThrow();
    assert.ok(!JSON.stringify(row).includes(lock.secret) && !JSON.stringify(row).includes(lock.registrationKey));
    assert.equal(row.site_id, siteJson.id);
    assert.equal(row.owner_user_id, null);

    assert.equal(await authenticateLockSecret(t.service.ctx, lock.id, lock.secret), true);
    assert.equal(await authenticateLockSecret(t.service.ctx, lock.id, lock.registrationKey), false);
    assert.equal(await authenticateLockSecret(t.service.ctx, lock.id, `${lock.secret}x`), false);
    assert.equal(await authenticateLockSecret(t.service.ctx, UNKNOWN_ID, lock.secret), false);
    assert.equal(await authenticateLockSecret(t.service.ctx, lock.id, ''), false);

    const owner = await createUser(t.api);
    const claimed = await t.api.post('/device', { token: owner.authToken, body: { key: lock.registrationKey, name: 'Yard gate' } });
    assert.equal(claimed.status, 200);
    assert.equal(claimed.body.id, lock.id);
    const sites = await t.api.get('/site', { token: owner.authToken });
    assert.deepEqual(sites.body.map((s: { id: string }) => s.id), [siteJson.id]);
  });

  it('takes negative coordinates written as separate arguments (west of Greenwich, south of the equator)', async () => {
    const site = await latchkey('site', 'create', '--name', 'Rio', '--latitude', '-22.9', '--longitude', '-43.2', '--radius', '50');
    assert.equal(site.code, 0, site.stderr);
    const json = JSON.parse(site.stdout);
    assert.deepEqual([json.latitude, json.longitude], [-22.9, -43.2]);
  });

  it('makes a site without a location and a lock without a site', async () => {
    const [site, lock] = await Promise.all([latchkey('site', 'create', '--name', 'Plain'), latchkey('lock', 'provision', '--name', 'Loose')]);
    assert.equal(site.code, 0, site.stderr);
    const printed = JSON.parse(site.stdout);
    assert.deepEqual([printed.colour, printed.latitude, printed.longitude, printed.radius], ['#00283C', 0, 0, 10]);
    assert.equal(lock.code, 0, lock.stderr);
    const row = await t.service.ctx.db.kysely.selectFrom('locks').select(['name', 'site_id']).where('id', '=', JSON.parse(lock.stdout).id).executeTakeFirstOrThrow();
    assert.deepEqual(row, { name: 'Loose', site_id: null });
  });

  it('exits 2 with a clear message for bad arguments and an unknown site', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['lock', 'provision'], /--name is required/],
      [['lock', 'provision', '--name', 'x', '--site', UNKNOWN_ID], /unknown site/],
      [['lock', 'provision', '--name', 'x', '--site', 'not-a-uuid'], /--site must be a site id/],
      [['lock', 'provision', '--name', 'x', '--bogus'], /bogus/],
      [['site', 'create', '--name', 'x', '--latitude', '1'], /go together/],
      [['site', 'create', '--name', 'x', '--colour', 'blue'], /#RRGGBB/],
      [['site', 'create', '--name', 'x', '--latitude', '95', '--longitude', '0', '--radius', '5'], /latitude/],
    ];
    const runs = await Promise.all(cases.map(([args]) => latchkey(...args)));
    runs.forEach((run, i) => {
      const [args, message] = cases[i]!;
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, message);
      assert.equal(run.stdout, '');
    });
    const help = await latchkey('lock', 'provision', '--help');
    assert.equal(help.code, 0);
    assert.match(help.stdout, /lock provision --name N \[--site SITE_ID\]/);
  });
});
