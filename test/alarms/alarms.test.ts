import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser, type TestUser } from '../helpers/factories.js';
import { claimLock, shareLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { connectTestLock, type TestLock } from '../helpers/test-lock.js';
import { eventually } from '../helpers/wait.js';
import { sdkAccept } from '../helpers/sdk-wire.js';
import { openStream, type SseStream } from '../events/sse-client.js';

/** Issue 31 point 2: alarms the service derives from the health a lock reports (device protocol 1.2). */
describe('lock alarms', () => {
  let t: TestService;
  let url: string;
  let owner: TestUser;
  const locks: TestLock[] = [];
  const streams: SseStream[] = [];

  before(async () => {
    t = await startTestService();
    url = `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`;
    owner = await createUser(t.api);
  });
  after(async () => {
    for (const stream of streams) stream.close();
    for (const lock of locks) await lock.client.endAsync(true).catch(() => undefined);
    await t.close();
  });

  const alarmsOf = async (lockId: string, user = owner) => {
    const res = await t.api.get(`/device/${lockId}/alarms`, { token: user.authToken });
    assert.equal(res.status, 200);
    return res.body as { open: Array<{ kind: string; raisedAt: number; clearedAt: number | null }>; history: Array<{ kind: string; clearedAt: number | null }> };
  };
  const openKinds = async (lockId: string) => (await alarmsOf(lockId)).open.map((a) => a.kind).sort();
  const alarmEntries = async (lockId: string) => {
    const rows = await t.service.ctx.db.kysely.selectFrom('audit_entries').select(['type', 'message']).where('lock_id', '=', lockId).where('type', 'like', 'ALARM_%').orderBy('seq').execute();
    return rows.map((row) => `${row.type} ${row.message}`);
  };

  it('raises each alarm once, clears it when its condition ends, audits both and streams them', async () => {
    const claimed = await claimLock(t, owner);
    const stream = await openStream(t.service.url, `/device/events?device=${claimed.id}`, { token: owner.authToken });
    streams.push(stream);
    const lock = await connectTestLock({ url, id: claimed.id, secret: claimed.secret });
    locks.push(lock);
    let ts = 1;
    const report = (health: Record<string, unknown>) =>
      lock.client.publishAsync(`locks/${claimed.id}/state`, JSON.stringify({ locked: true, doorOpen: false, ts: ts++, ...health }), { qos: 1, retain: true });

    await report({ battery: 80, jammed: false, tamper: false });
    await eventually(async () => ((await t.api.get(`/device/${claimed.id}`, { token: owner.authToken })).body.state?.battery === 80 ? true : undefined), 'health stored');
    assert.deepEqual(await openKinds(claimed.id), []);

    await report({ battery: 15, jammed: true, tamper: true });
    await eventually(async () => ((await openKinds(claimed.id)).length === 3 ? true : undefined), 'three alarms open');
    assert.deepEqual(await openKinds(claimed.id), ['battery_low', 'jammed', 'tampered']);

    // The same report again (a retained replay, a second instance) raises nothing twice.
    await report({ battery: 15, jammed: true, tamper: true });
    await report({ battery: 4 });
    await eventually(async () => ((await openKinds(claimed.id)).includes('battery_critical') ? true : undefined), 'critical');
    assert.deepEqual(await openKinds(claimed.id), ['battery_critical', 'battery_low', 'jammed', 'tampered']);

    await report({ battery: 100, jammed: false, tamper: false });
    await eventually(async () => ((await openKinds(claimed.id)).length === 0 ? true : undefined), 'all cleared');
    const { history } = await alarmsOf(claimed.id);
    assert.deepEqual(history.map((a) => a.kind).sort(), ['battery_critical', 'battery_low', 'jammed', 'tampered']);
    assert.ok(history.every((a) => a.clearedAt !== null));

    assert.deepEqual((await alarmEntries(claimed.id)).sort(), [
      'ALARM_CLEARED alarm cleared: battery critical (100 %)',
      'ALARM_CLEARED alarm cleared: battery low (100 %)',
      'ALARM_CLEARED alarm cleared: lock jammed',
      'ALARM_CLEARED alarm cleared: lock tampered with',
      'ALARM_RAISED alarm: battery critical (4 %)',
      'ALARM_RAISED alarm: battery low (15 %)',
      'ALARM_RAISED alarm: lock jammed',
      'ALARM_RAISED alarm: lock tampered with',
    ]);
    const streamed = await eventually(async () => {
      const alarms = stream.events.filter((e) => String(e.data?.type).startsWith('ALARM_'));
      return alarms.length === 8 ? alarms : undefined;
    }, 'alarms streamed');
    assert.deepEqual(streamed.map((e) => e.data.type).filter((type) => type === 'ALARM_RAISED').length, 4);

    // Neither log the spec's clients read shows them (v1, and v2 which the SDK decodes).
    for (const version of [1, 2]) {
      const log = await t.api.get(`/device/${claimed.id}/log`, { token: owner.authToken, accept: sdkAccept(version) });
      assert.equal(log.status, 200);
      assert.ok((log.body as unknown[]).length > 0);
      assert.ok((log.body as Array<{ type: string }>).every((entry) => !entry.type.startsWith('ALARM_')), `v${version}`);
    }
  });

  it('shows the alarms to admins only: 403 for a user, 404 for a stranger', async () => {
    const claimed = await claimLock(t, owner);
    const member = await createUser(t.api);
    await shareLock(t, claimed.id, owner, member.userId);
    const stranger = await createUser(t.api);
    assert.equal((await t.api.get(`/device/${claimed.id}/alarms`, { token: member.authToken })).status, 403);
    assert.equal((await t.api.get(`/device/${claimed.id}/alarms`, { token: stranger.authToken })).status, 404);
    assert.equal((await t.api.get('/device/not-a-lock/alarms', { token: owner.authToken })).status, 404);
  });
});
