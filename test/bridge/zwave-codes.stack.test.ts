import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runBridge } from '../../src/bridge/run-bridge.js';
import { auditEntriesOf, createVerifiedUser, revokeLock, shareLock } from '../helpers/locks.js';
import { eventually } from '../helpers/wait.js';
import { startZwaveStack, type ZwaveStack } from '../helpers/zwave-stack.js';
import { assertNoDigits, codeOnLock, makeCode, type CodeTerms } from '../keypad/support.js';
import { ready, startBridgeRig, type BridgeRig } from './support.js';

/**
 * Keypad codes on a Z-Wave lock (issue 30 point 3): the bridge writes each code into a User Code
 * slot of Z-Wave JS's own mock door lock, enabled only while the code may open; a person types
 * digits at the mock's keypad, the mock checks its own slots (an enabled slot holding them opens
 * and names the slot; anything else is "invalid credential"), and the service audits what the
 * bridge reports. The bridge's log is captured and searched for the digits.
 */

const NODES = [2, 3, 4, 5, 6];

/** HH:mm on `zone`'s wall clock, `offsetMinutes` from now (kept inside today: 00:00–23:59). */
function wallClock(zone: string, offsetMinutes: number): string {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(new Date());
  const minutes = Number(parts.find((p) => p.type === 'hour')!.value) * 60 + Number(parts.find((p) => p.type === 'minute')!.value);
  const at = Math.min(23 * 60 + 59, Math.max(0, minutes + offsetMinutes));
  return `${String(Math.floor(at / 60)).padStart(2, '0')}:${String(at % 60).padStart(2, '0')}`;
}

const EVERY_DAY = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];

describe('keypad codes on a Z-Wave lock through the bridge', () => {
  let rig: BridgeRig;
  let stack: ZwaveStack;
  const lockOf = (node: number) => rig.locks[NODES.indexOf(node)]!.id;

  /** No line of the bridge's log holds the digits of a code made in the test. */
  const noDigitsLogged = (...codes: Array<{ digits: string }>) => {
    for (const { digits } of codes) assertNoDigits(rig.log.lines, digits, "the bridge's log");
  };

  before(async () => {
    stack = await startZwaveStack(NODES);
    rig = await startBridgeRig(NODES.map((nodeId) => ({ zwave: { nodeId } })), stack.url);
  });
  after(async () => {
    await rig?.close();
    await stack?.stop();
  });

  /** A code made through the API and written into the lock's slot (sync applied). */
  async function codeOn(node: number, terms: CodeTerms): Promise<{ id: string; digits: string }> {
    const code = await makeCode(rig.t, rig.admin, [lockOf(node)], terms);
    await eventually(async () => (await codeOnLock(rig.t, rig.admin, code.id, lockOf(node)))?.sync.state === 'applied' || undefined, 'the code applied on the lock', 30_000);
    return code;
  }

  /** The lock's DOOR_UNLOCK entries from its keypad: accepted ones naming `codeId`, or refused ones. */
  const keypadEntries = async (node: number, which: { code: string } | 'refused') => (await auditEntriesOf(rig.t, lockOf(node)))
    .filter((e) => e.type === 'DOOR_UNLOCK' && (which === 'refused' ? e.rejected === 1 : e.rejected === 0 && JSON.parse(e.details ?? '{}').code === which.code));

  /** Types `digits` at the node's keypad and waits until the service has audited one more entry of the kind expected. */
  async function type(node: number, digits: string, expect: { opens: string } | 'refused'): Promise<Awaited<ReturnType<typeof keypadEntries>>[number]> {
    const which = expect === 'refused' ? 'refused' : { code: expect.opens };
    const before = (await keypadEntries(node, which)).length;
    await stack.act(node, { do: 'code', digits });
    return eventually(async () => (await keypadEntries(node, which))[before], expect === 'refused' ? 'the refused entry audited' : 'the keypad unlock audited', 20_000);
  }

  /** The bridge has written the code's slot with `enabled` (or cleared it, null) after `from` log lines. */
  const slotWritten = (codeId: string, enabled: boolean | null, from = 0) => eventually(() => rig.log.lines.slice(from).some((line) => line.code === codeId
    && (enabled === null ? line.msg === 'keypad_slot_cleared' : line.msg === 'keypad_slot_written' && line.enabled === enabled)) || undefined, `the slot ${enabled === null ? 'cleared' : enabled ? 'enabled' : 'disabled'}`, 30_000);

  it("opens inside the code's window and weekly hours on the zone's wall clock, and not outside them", async () => {
    const id = lockOf(2);
    await ready(rig, id);
    const member = await createVerifiedUser(rig.t);
    await shareLock(rig.t, id, rig.admin, member.userId);
    // The same wall-clock hours in Tokyo (now) and in New York (13 or 14 hours away: not now).
    const hours = (zone: string) => [{ start: wallClock('Asia/Tokyo', -60), end: wallClock('Asia/Tokyo', 60), timezone: zone, days: EVERY_DAY }];
    const tokyo = await codeOn(2, { user: member.userId, schedule: hours('Asia/Tokyo') });
    const newYork = await codeOn(2, { guest: 'Night shift', schedule: hours('America/New_York') });
    const unlock = await type(2, tokyo.digits, { opens: tokyo.id });
    assert.equal(unlock.actor_user_id, member.userId);
    assert.equal(JSON.parse(unlock.details!).source, 'keypad');
    await type(2, newYork.digits, 'refused');

    // A window ending in a few seconds: the bridge disables the slot at its end.
    const mark = rig.log.lines.length;
    const closing = await codeOn(2, { guest: 'Courier', end: Math.ceil(Date.now() / 1000) + 20 });
    await type(2, closing.digits, { opens: closing.id });
    await slotWritten(closing.id, false, mark);
    await type(2, closing.digits, 'refused');
    noDigitsLogged(tokyo, newYork, closing);
  });

  it('opens once with a one-time code, and no more once its holder is revoked', async () => {
    const id = lockOf(3);
    await ready(rig, id);
    const once = await codeOn(3, { guest: 'Plumber', maxUses: 1 });
    await type(3, once.digits, { opens: once.id });
    await eventually(async () => (await codeOnLock(rig.t, rig.admin, once.id, id))?.status === 'used_up' || undefined, 'the code used up', 20_000);
    await slotWritten(once.id, null);
    await type(3, once.digits, 'refused');
    assert.equal((await keypadEntries(3, { code: once.id })).length, 1);

    const member = await createVerifiedUser(rig.t);
    await shareLock(rig.t, id, rig.admin, member.userId);
    const theirs = await codeOn(3, { user: member.userId });
    await type(3, theirs.digits, { opens: theirs.id });
    await revokeLock(rig.t, id, rig.admin, [member.userId]);
    await slotWritten(theirs.id, null);
    await type(3, theirs.digits, 'refused');
    noDigitsLogged(once, theirs);
  });

  it('audits wrong codes and locks the keypad out after five, the right code refused meanwhile', async () => {
    const id = lockOf(4);
    await ready(rig, id);
    const code = await codeOn(4, { guest: 'Gardener' });
    const wrong = code.digits === '97531' ? '97532' : '97531';
    for (let i = 0; i < 4; i++) assert.match((await type(4, wrong, 'refused')).message, /unknown_code/);
    const fifth = await type(4, wrong, 'refused');
    assert.ok(typeof JSON.parse(fifth.details!).lockoutUntil === 'number', fifth.message);
    await slotWritten(code.id, false);
    assert.match((await type(4, code.digits, 'refused')).message, /locked_out/);
    const alarms = await rig.t.api.get(`/device/${id}/alarms`, { token: rig.admin.authToken });
    for (const kind of ['refused_unlocks', 'keypad_locked_out']) assert.ok(alarms.body.open.some((alarm: { kind: string }) => alarm.kind === kind), JSON.stringify(alarms.body));
    noDigitsLogged(code);
  });

  it('shows a code failed, with the reason, while the lock does not take it, and applied once it does', async () => {
    const id = lockOf(6);
    await ready(rig, id);
    await stack.act(6, { do: 'away' });
    await eventually(() => !rig.t.service.ctx.link.isOnline(id) || undefined, 'the away lock offline', 15_000);
    const code = await makeCode(rig.t, rig.admin, [id], { guest: 'Locksmith' });
    const failed = await eventually(async () => {
      const onLock = await codeOnLock(rig.t, rig.admin, code.id, id);
      return onLock?.sync.state === 'failed' ? onLock : undefined;
    }, 'the code failed on the lock', 60_000);
    assert.match(failed.sync.error ?? '', /^(slot_write_failed|lock_unreachable)/);
    await stack.act(6, { do: 'back' });
    await ready(rig, id);
    await eventually(async () => (await codeOnLock(rig.t, rig.admin, code.id, id))?.sync.state === 'applied' || undefined, 'applied once the lock is back', 60_000);
    await type(6, code.digits, { opens: code.id });
    noDigitsLogged(code);
  });

  // Last: it stops the bridge and starts another on the same data directory.
  it('applies a change made while the bridge was stopped once it is back, and keeps which code is in which slot', async () => {
    const id = lockOf(5);
    await ready(rig, id);
    const kept = await codeOn(5, { guest: 'Cleaner' });
    await rig.bridge.close();
    await eventually(() => !rig.t.service.ctx.link.isOnline(id) || undefined, 'the lock offline', 15_000);
    const made = await makeCode(rig.t, rig.admin, [id], { guest: 'Electrician' });
    assert.equal((await codeOnLock(rig.t, rig.admin, made.id, id))?.sync.state, 'pending');

    rig.bridge = runBridge({ config: rig.config, logger: rig.log.logger });
    await ready(rig, id);
    await eventually(async () => (await codeOnLock(rig.t, rig.admin, made.id, id))?.sync.state === 'applied' || undefined, 'applied on return', 30_000);
    await type(5, made.digits, { opens: made.id });
    await type(5, kept.digits, { opens: kept.id });
    noDigitsLogged(kept, made);
  });
});
