import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createUser, uniqueEmail } from '../helpers/factories.js';
import { useService } from '../helpers/service.js';
import { assertError } from './support.js';

/** Issue 15: a display name is free text shown to others; control characters (CR/LF above all) are refused. */
describe('display names with control characters', () => {
  const t = useService();
  const bad = ['Mallory\r\nBcc: everyone@example.com', 'line\nbreak', 'tab\there', 'nul\u0000', 'del\u007f', 'c1\u0085next',
    // Issue 27 point 5: terminal controls, the Unicode line and paragraph separators, bidirectional controls.
    'esc\u001b[31m', 'bel\u0007', 'ls\u2028next', 'ps\u2029next', 'evil\u202egnp.exe', 'iso\u2066late\u2069', 'lrm\u200e', 'alm\u061c'];

  for (const version of [1, 2, 3]) {
    it(`registration v${version} refuses them with 400 and creates no account`, async () => {
      for (const displayName of bad) {
        const email = uniqueEmail(`ctl-v${version}`);
        const res = await t.api.post('/auth/register', { ...(version === 1 ? {} : { version }), body: { email, password: 'correct horse battery', displayName } });
        assertError(res, 400);
        assertError(await t.api.post('/auth/token', { body: { email, password: 'correct horse battery' } }), 401);
      }
    });
  }

  it('POST /account refuses them with 400 and keeps the name', async () => {
    const user = await createUser(t.api, { displayName: 'Ada' });
    for (const displayName of bad) assertError(await t.api.post('/account', { token: user.authToken, body: { displayName } }), 400);
    assert.equal((await t.api.get('/account', { token: user.authToken })).body.displayName, 'Ada');
  });

  it('names in any script, with spaces and punctuation, are still accepted', async () => {
    const user = await createUser(t.api, { displayName: 'Zoë O’Brien-Łukasz 山田 🙂' });
    assert.equal((await t.api.get('/account', { token: user.authToken })).body.displayName, 'Zoë O’Brien-Łukasz 山田 🙂');
    assert.equal((await t.api.post('/account', { token: user.authToken, body: { displayName: 'Ada Lovelace' } })).status, 204);
  });
});
