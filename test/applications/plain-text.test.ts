import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { createUser } from '../helpers/factories.js';
import { claimLock } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';
import { applicationBody, createApplication, createThirdParty, thirdPartyToken } from './helpers.js';

/**
 * Issue 27 point 5: one rule for every name and short text, whoever writes it: no C0/C1 controls,
 * no U+2028/U+2029, no bidirectional controls (src/http/plain-text.ts).
 */
const BAD = ['Mallory\r\nBcc: all@example.com', 'cr\rhere', 'esc\u001b[2J', 'bel\u0007', 'ls\u2028next', 'evil\u202egnp.exe', 'iso\u2067late\u2069'];

describe('control characters in names and texts', () => {
  const t = useService();

  it("a third-party token's name claims carrying them are refused (401) and store nothing", async () => {
    const party = await createThirdParty(t.api);
    for (const claim of ['name', 'given_name', 'family_name', 'middle_name']) {
      for (const value of BAD) {
        const sub = `user-${randomUUID()}`;
        const res = await t.api.get('/account', { token: await thirdPartyToken(party, { sub, claims: { [claim]: value } }) });
        assert.equal(res.status, 401, `${claim} ${JSON.stringify(value)}: ${res.text}`);
        const stored = await t.service.ctx.db.kysely.selectFrom('users').select('display_name').where('namespace', '=', party.applicationId).where('external_id', '=', sub).execute();
        assert.deepEqual(stored, [], 'no account created');
      }
    }
    // Plain names in any script still pass, and are stored.
    const res = await t.api.get('/account', { token: await thirdPartyToken(party, { claims: { name: 'Zoë 山田 🙂' } }) });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.displayName, 'Zoë 山田 🙂');
  });

  it('an application name, sender name and call to action carrying them are refused (400)', async () => {
    const owner = await createUser(t.api);
    const app = await createApplication(t.api, owner);
    const cta = { actionTarget: 'https://example.com/go', headline: 'Welcome', actionText: 'Open' };
    for (const value of BAD) {
      const bodies = [
        { name: value },
        { companyName: value },
        { emailPreferences: { senderName: value } },
        { emailPreferences: { callToAction: { ...cta, headline: value } } },
        { emailPreferences: { callToAction: { ...cta, actionText: value } } },
      ];
      for (const body of bodies) {
        const created = await t.api.post('/platform/application', { token: owner.authToken, body: applicationBody(body) });
        assert.equal(created.status, 400, `create ${JSON.stringify(body)}: ${created.text}`);
        const updated = await t.api.post(`/platform/application/${app.applicationId}`, { token: owner.authToken, body });
        assert.equal(updated.status, 400, `update ${JSON.stringify(body)}: ${updated.text}`);
      }
    }
    const record = await t.api.get(`/platform/application/${app.applicationId}`, { token: owner.authToken });
    assert.equal(record.body.name, app.name);
  });

  it("a lock's name and a member's alias carrying them are refused (400)", async () => {
    const admin = await createUser(t.api);
    const lock = await claimLock(t, admin, { name: 'Front door' });
    for (const value of BAD) {
      assert.equal((await t.api.put(`/device/${lock.id}`, { token: admin.authToken, body: { name: value } })).status, 400, JSON.stringify(value));
      assert.equal((await t.api.put(`/device/${lock.id}`, { token: admin.authToken, body: { settings: { defaultName: value } } })).status, 400, JSON.stringify(value));
    }
  });
});
