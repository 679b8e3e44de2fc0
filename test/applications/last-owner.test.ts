import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createUser } from '../helpers/factories.js';
import { useService } from '../helpers/service.js';
import { createThirdParty, signingKey, thirdPartyToken } from './helpers.js';

/**
 * Issue 27 point 3: an application never outlives its only owner. DELETE /account of the last
 * owner is refused (409 last_application_owner) and leaves everything as it was.
 */
describe('DELETE /account of an application owner', () => {
  const t = useService();

  it('the last owner cannot delete their account; the application keeps working and stays theirs', async () => {
    const party = await createThirdParty(t.api);
    const res = await t.api.delete('/account', { token: party.owner.authToken });
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error, 'last_application_owner');
    assert.equal((await t.api.get('/account', { token: party.owner.authToken })).status, 200, 'the account is still there');
    // They can still manage it: rotate a key, and the issuer still signs its users in.
    const next = await signingKey();
    assert.equal((await t.api.post(`/platform/application/${party.applicationId}/key`, { token: party.owner.authToken, body: next.publicJwk })).status, 204);
    assert.equal((await t.api.get('/account', { token: await thirdPartyToken(party) })).status, 200);
  });

  it('with another owner the account goes, and the other owner manages the application', async () => {
    const party = await createThirdParty(t.api);
    const second = await createUser(t.api);
    assert.equal((await t.api.post(`/platform/application/${party.applicationId}/owner`, { token: party.owner.authToken, body: { userId: second.userId } })).status, 204);
    assert.equal((await t.api.delete('/account', { token: party.owner.authToken })).status, 204);
    const record = await t.api.get(`/platform/application/${party.applicationId}`, { token: second.authToken });
    assert.equal(record.status, 200, record.text);
    assert.deepEqual(record.body.owners, [second.userId]);
    // Now the only owner: refused in turn.
    assert.equal((await t.api.delete('/account', { token: second.authToken })).status, 409);
  });

  it('once the application is deleted, its last owner may go', async () => {
    const party = await createThirdParty(t.api);
    assert.equal((await t.api.delete(`/platform/application/${party.applicationId}`, { token: party.owner.authToken })).status, 204);
    assert.equal((await t.api.delete('/account', { token: party.owner.authToken })).status, 204);
  });
});
