import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTestClock } from '../helpers/clock.js';
import { createUser } from '../helpers/factories.js';
import { claimLock } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';

/**
 * Issue 27 point 8: the anonymous checkpoint is no live activity meter. Anonymous callers see the
 * newest checkpoint signed by the last multiple of AUDIT_PUBLIC_CHECKPOINT_INTERVAL_S; signed-in
 * callers see the latest; anonymous consistency proofs reach no further than the public one.
 */
describe('the anonymous audit checkpoint', () => {
  const clock = createTestClock();
  clock.set(1_800_000_000 + 10); // 10 s into a public hour
  const t = useService({ env: { AUDIT_CHECKPOINT_INTERVAL_MS: '0', AUDIT_PUBLIC_CHECKPOINT_INTERVAL_S: '3600' }, clock });

  it('moves once an interval for anonymous callers, at every entry for signed-in ones', async () => {
    const user = await createUser(t.api);
    const latest = async () => (await t.api.get('/audit/checkpoint', { token: user.authToken })).body?.treeSize as number | undefined;
    const anonymous = () => t.api.get('/audit/checkpoint');

    await claimLock(t, user);
    const first = await eventually(latest, 'a first checkpoint');
    // Signed within this hour: nothing public yet.
    assert.equal((await anonymous()).status, 404);

    clock.advance(3600);
    assert.equal((await anonymous()).body.treeSize, first, 'the hour is over: its last checkpoint is public');
    // Tenants act: the signed-in view moves, the anonymous one does not.
    await claimLock(t, user);
    const second = await eventually(async () => ((await latest()) ?? 0) > first && latest(), 'a newer checkpoint');
    assert.equal((await anonymous()).body.treeSize, first);
    const probe = await t.api.get(`/audit/proof/consistency?from=1&to=${second}`);
    assert.equal(probe.status, 400, 'an anonymous consistency proof stops at the public size');
    assert.doesNotMatch(probe.text, new RegExp(`≤ ${second}\\b`), 'and its error does not name the live size');
    assert.equal((await t.api.get(`/audit/proof/consistency?from=1&to=${second}`, { token: user.authToken })).status, 200);

    clock.advance(3600);
    assert.equal((await anonymous()).body.treeSize, second);
  });
});
