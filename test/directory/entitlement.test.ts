import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { createLegacyUser, createUser, uniqueEmail } from '../helpers/factories.js';
import { claimLock } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';

/**
 * Issue 27 point 1: the directory answers only callers entitled to look people up (an application's
 * users within it; direct users who administer a lock, counted like invitations) and never makes
 * keys or writes rows for anyone but the caller.
 */
describe('who may query the directory', () => {
  const t = useService({ env: { RATE_INVITES_PER_USER: '6' } });
  const v1 = (token: string, body: unknown) => t.api.post('/directory/query', { token, body });
  const v2 = (token: string, body: unknown) => t.api.post('/directory/query', { token, version: 2, body });
  const keylessRows = () => t.service.ctx.db.kysely.selectFrom('users').select(['id', 'updated']).where('public_key', 'is', null).orderBy('id').execute();

  it('a direct account that administers no lock gets 403 whether the person exists or not', async () => {
    const stranger = await createUser(t.api);
    const known = await createLegacyUser(t.api);
    const asked = [{ email: known.email }, { email: uniqueEmail('nobody') }, { localKey: known.userId }, { localKey: randomUUID() }];
    for (const body of asked) {
      const res = await v1(stranger.authToken, body);
      assert.equal(res.status, 403, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.body.code, 403);
    }
    const batch = await v2(stranger.authToken, { email: [known.email, uniqueEmail('nobody')], localKey: [known.userId] });
    assert.equal(batch.status, 403, batch.text);
  });

  it('a lookup makes no key and writes nothing for the people it finds', async () => {
    const admin = await createUser(t.api);
    await claimLock(t, admin);
    const keyless = await Promise.all([1, 2, 3].map(() => createUser(t.api)));
    const before = await keylessRows();
    const batch = await v2(admin.authToken, { email: keyless.map((u) => u.email) });
    assert.equal(batch.status, 200, batch.text);
    assert.deepEqual(batch.body, [], 'people with no public key yet are left out, not given one');
    assert.equal((await v1(admin.authToken, { email: keyless[0]!.email })).status, 404);
    assert.deepEqual(await keylessRows(), before, 'no row written');

    // Once they have a key (their own first GET /account makes it), they are found with it.
    const account = await t.api.get('/account', { token: keyless[1]!.authToken });
    const found = await v1(admin.authToken, { email: keyless[1]!.email });
    assert.equal(found.status, 200, found.text);
    assert.deepEqual(found.body, { id: keyless[1]!.userId, publicKey: account.body.publicKey });
  });

  it("an administrator's lookups count with their invitations, value by value (429 past the day's allowance)", async () => {
    const admin = await createUser(t.api);
    await claimLock(t, admin);
    const known = await createLegacyUser(t.api);
    assert.equal((await v2(admin.authToken, { email: [known.email, uniqueEmail('a'), uniqueEmail('b')] })).status, 200);
    assert.equal((await v1(admin.authToken, { email: known.email })).status, 200);
    assert.equal((await t.api.post(`/share/invite/${encodeURIComponent(uniqueEmail('invitee'))}`, { token: admin.authToken })).status, 200);
    // 5 of 6 spent: one more fits, then nothing.
    assert.equal((await v1(admin.authToken, { localKey: known.userId })).status, 200);
    assert.equal((await v2(admin.authToken, { email: [known.email] })).status, 429);
    const over = await v1(admin.authToken, { email: uniqueEmail('d') });
    assert.equal(over.status, 429, over.text);
    assert.ok(over.headers.get('retry-after'));
    assert.equal((await t.api.post(`/share/invite/${encodeURIComponent(uniqueEmail('late'))}`, { token: admin.authToken })).status, 429, 'and the invitations share it');
  });
});
