import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createTestClock } from '../helpers/clock.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { createThirdParty, thirdPartyToken, type ThirdParty } from './helpers.js';

describe('DELETE /account of an application user: the tokens issued before stay refused', () => {
  // The service's and the third party's: token `iat`s are whole seconds, compared with the deletion's time.
  const clock = createTestClock();
  let t: TestService;
  let party: ThirdParty;
  let otherParty: ThirdParty;
  before(async () => {
    t = await startTestService({}, { clock });
    party = await createThirdParty(t.api);
    otherParty = await createThirdParty(t.api, { owner: party.owner });
  });
  after(() => t.close());

  const account = (token: string) => t.api.get('/account', { token });
  const usersOf = async (applicationId: string, sub: string) =>
    (await t.service.ctx.db.kysely.selectFrom('users').select('id').where('namespace', '=', applicationId).where('external_id', '=', sub).execute()).map((u) => u.id);

  it('a token used before, and one issued before but never used, are 401 and recreate nothing', async () => {
    const sub = `user-${randomUUID()}`;
    const used = await thirdPartyToken(party, { sub, now: clock.now() });
    const unused = await thirdPartyToken(party, { sub, claims: { name: 'Ada' }, now: clock.now() });
    assert.equal((await account(used)).status, 200);
    const [userId] = await usersOf(party.applicationId, sub);
    assert.ok(userId);

    const deleted = await t.api.delete('/account', { token: used });
    assert.equal(deleted.status, 204, deleted.text);

    for (const [why, token] of [['remembered', used], ['never seen', unused]] as const) {
      const res = await account(token);
      assert.equal(res.status, 401, `${why}: ${res.text}`);
      assert.equal(res.body.code, 401);
    }
    assert.deepEqual(await usersOf(party.applicationId, sub), [], 'no account was recreated');
    // The same subject of another application is another user, untouched.
    assert.equal((await account(await thirdPartyToken(otherParty, { sub, now: clock.now() }))).status, 200);
  });

  it('a token issued after the deletion makes a fresh account, and the old tokens still do not reach it', async () => {
    const sub = `user-${randomUUID()}`;
    const old = await thirdPartyToken(party, { sub, now: clock.now() });
    assert.equal((await account(old)).status, 200);
    const [first] = await usersOf(party.applicationId, sub);
    assert.equal((await t.api.delete('/account', { token: old })).status, 204);

    clock.advance(1);
    const fresh = await thirdPartyToken(party, { sub, now: clock.now() });
    assert.equal((await account(fresh)).status, 200);
    const [second] = await usersOf(party.applicationId, sub);
    assert.ok(second);
    assert.notEqual(second, first, 'a new account, not the deleted one back');

    assert.equal((await account(old)).status, 401);
    assert.deepEqual(await usersOf(party.applicationId, sub), [second]);
    assert.equal((await account(fresh)).status, 200);

    // Deleting the fresh account refuses its tokens too.
    assert.equal((await t.api.delete('/account', { token: fresh })).status, 204);
    assert.equal((await account(fresh)).status, 401);
  });

  // Issue 27 point 6: `iat` is what the tombstone is compared with, so a token dated ahead must not pass.
  it('a token dated in the future is 401, before and after its account is deleted', async () => {
    const sub = `user-${randomUUID()}`;
    const ahead = await thirdPartyToken(party, { sub, now: clock.now() + 3600 });
    assert.equal((await account(ahead)).status, 401, 'an hour ahead');
    assert.deepEqual(await usersOf(party.applicationId, sub), [], 'no account made from it');

    // Within the drift allowance (5 s) a token is taken.
    const current = await thirdPartyToken(party, { sub, now: clock.now() + 2 });
    assert.equal((await account(current)).status, 200);
    assert.equal((await t.api.delete('/account', { token: current })).status, 204);
    // Dated past the tombstone, it would bring the deleted user back.
    const res = await account(ahead);
    assert.equal(res.status, 401, res.text);
    assert.deepEqual(await usersOf(party.applicationId, sub), [], 'the deleted user stays deleted');
  });
});
