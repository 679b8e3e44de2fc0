import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser, uniqueEmail, type TestUser } from '../helpers/factories.js';
import { claimLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';

/** Issue 15 §7: an admin's invitations are limited per day, so sharing is no mailing cannon. */
describe('invitations per admin are limited (RATE_INVITES_PER_USER)', () => {
  let t: TestService;
  let admin: TestUser;
  before(async () => {
    t = await startTestService({ RATE_INVITES_PER_USER: '2' });
    admin = await createUser(t.api);
    await claimLock(t, admin);
  });
  after(() => t.close());

  const invite = (who: TestUser, email: string) => t.api.get(`/share/invite/${encodeURIComponent(email)}`, { token: who.authToken });
  const invitees = async () => (await t.service.ctx.db.kysely.selectFrom('users').select('id').where('orphan', '=', 1).execute()).length;

  it('answers 429 to the invitation past the limit and makes nothing; known users are still found', async () => {
    assert.equal((await invite(admin, uniqueEmail('one'))).status, 200);
    assert.equal((await invite(admin, uniqueEmail('two'))).status, 200);
    const made = await invitees();
    const third = await invite(admin, uniqueEmail('three'));
    assert.equal(third.status, 429, third.text);
    assert.equal(await invitees(), made, 'no invitee was made');
    const known = await createUser(t.api);
    assert.equal((await invite(admin, known.email)).status, 200, 'looking up an existing user sends no invitation');
  });

  it('counts each admin on their own', async () => {
    const other = await createUser(t.api);
    await claimLock(t, other);
    assert.equal((await invite(other, uniqueEmail('other'))).status, 200);
  });
});
