import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startService } from '../../src/server.js';
import { TEST_SERVICE_OPTIONS } from '../helpers/service.js';
import { auditEntriesOf } from '../helpers/locks.js';
import { sdkExecute, sdkLocalUnlock, sdkLockOperation, sdkOperationToken } from '../helpers/sdk-wire.js';
import { eventually } from '../helpers/wait.js';
import { startZwaveStack, type ZwaveStack } from '../helpers/zwave-stack.js';
import { Api } from '../helpers/http.js';
import { lockJson, ready, startBridgeRig, type BridgeRig } from './support.js';

/**
 * The bridge's LAN endpoint and its reports of what happened at the door (issue 28 point 3,
 * issue 26 point 4; device protocol 1.3) in front of Z-Wave JS's mock stack: keypad and manual
 * operations audited once with their source; with the service and its broker gone, the official
 * SDK's LocalUnlockClient request opens the Z-Wave lock, and the service that comes back audits it
 * with the time it happened and refuses the same request.
 */

type Entry = Awaited<ReturnType<typeof auditEntriesOf>>[number];
const detailsOf = (entry: Pick<Entry, 'details'>) => (entry.details === null ? {} : (JSON.parse(entry.details) as Record<string, unknown>));

describe('latchkey bridge: unlock on the LAN and the door reported (Z-Wave)', () => {
  let rig: BridgeRig;
  let stack: ZwaveStack;
  let id: string;
  before(async () => {
    stack = await startZwaveStack([2]);
    rig = await startBridgeRig([{ zwave: { nodeId: 2 } }], stack.url, { lan: true });
    id = rig.locks[0]!.id;
  });
  after(async () => {
    await rig?.close();
    await stack?.stop();
  });

  it('audits the keypad (with its slot) and a hand on the lock once each, without a user', async () => {
    const { t } = rig;
    await ready(rig, id);
    await eventually(async () => ((await lockJson(rig, id)).state.locked !== undefined ? true : undefined), 'the bolt known', 15_000);
    const before = (await auditEntriesOf(t, id)).length;
    const since = async () => (await auditEntriesOf(t, id)).slice(before);
    await stack.act(2, { do: 'keypad', slot: 3, locked: false });
    const keypad = await eventually(async () => (await since()).find((e) => detailsOf(e).source === 'keypad'), 'the keypad unlock audited', 15_000);
    assert.deepEqual([keypad.type, keypad.actor_user_id, detailsOf(keypad).slot], ['DOOR_UNLOCK', null, 3]);
    await stack.act(2, { do: 'manual', locked: true });
    await eventually(async () => ((await since()).some((e) => detailsOf(e).source === 'manual') ? true : undefined), 'the manual lock audited', 15_000);
    await eventually(async () => ((await lockJson(rig, id)).state.locked === true ? true : undefined), 'locked, as the lock reports it', 15_000);
    const moves = (await since()).filter((e) => e.type === 'DOOR_UNLOCK' || e.type === 'DOOR_LOCK');
    assert.deepEqual(moves.map((e) => [e.type, detailsOf(e).source ?? null]), [['DOOR_UNLOCK', 'keypad'], ['DOOR_LOCK', 'manual']]);
  });

  it('opens the Z-Wave lock on the LAN with the service gone, then audits it once the service is back and refuses a replay at either path', async () => {
    const { t, admin } = rig;
    const lanUrl = await rig.bridge.lanStarted;
    assert.ok(lanUrl !== null);
    await ready(rig, id);
    await eventually(async () => ((await lockJson(rig, id)).settings.directAccess === false ? true : undefined), 'the lock JSON read', 15_000);
    assert.deepEqual((await lockJson(rig, id)).settings.directAccessEndpoints, []);
    const allowed = await t.api.put(`/device/${id}`, { token: admin.authToken, body: { settings: { directAccess: true } } });
    assert.ok(allowed.status < 300, allowed.text);
    await eventually(async () => ((await lockJson(rig, id)).settings.directAccessEndpoints[0] === lanUrl ? true : undefined), 'the LAN address shown', 15_000);

    // The service and its embedded broker go away: only the LAN is left.
    await t.service.close();
    const happened = Math.floor(Date.now() / 1000);
    const token = sdkOperationToken(admin, id, sdkLockOperation(false), { now: happened });
    const opened = await sdkLocalUnlock(lanUrl, token);
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    await eventually(() => (rig.bridge.status()[0]!.reachable ? true : undefined), 'the lock reachable', 15_000);
    assert.equal((await sdkLocalUnlock(lanUrl, token)).status, 409);

    const again = await startService(t.config, TEST_SERVICE_OPTIONS);
    try {
      await ready(rig, id, again);
      const entry = await eventually(async () => {
        const rows = await again.ctx.db.kysely.selectFrom('audit_entries').select(['type', 'actor_user_id', 'timestamp', 'details']).where('lock_id', '=', id).orderBy('seq').execute();
        return rows.find((e) => detailsOf(e).source === 'lan');
      }, 'the LAN unlock audited by the service that came back', 20_000);
      assert.equal(entry.type, 'DOOR_UNLOCK');
      assert.equal(entry.actor_user_id, admin.userId);
      assert.equal(detailsOf(entry).happenedAt, entry.timestamp);
      assert.ok(entry.timestamp >= happened - 1 && entry.timestamp < happened + 30, `happened at ${happened}, audited at ${entry.timestamp}`);
      const replayed = await sdkExecute(new Api(again.url), admin.authToken, id, token);
      assert.equal(replayed.status, 409, replayed.text);
    } finally {
      await again.close();
    }
  });
});
