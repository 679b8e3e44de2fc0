import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createVerifiedUser, revokeLock, shareLock } from '../helpers/locks.js';
import { startVirtualMatterLock, startVirtualMatterLocks, type VirtualMatterLock, type VirtualMatterLockDevice, type VirtualMatterLocks } from '../helpers/matter-lock.js';
import { eventually } from '../helpers/wait.js';
import { codeOnLock, makeCode, type CodeTerms } from '../keypad/support.js';
import { codeOn, EVERY_DAY, noDigitsLogged, slotWritten, typed, wallClock } from './codes-support.js';
import { lockJson, ready, startBridgeRig, type BridgeRig } from './support.js';

/**
 * Keypad codes on a Matter lock (issue 30 point 3): the bridge writes each code into matter.js's own
 * virtual door lock as a user with a PIN credential (SetUser, SetCredential), enabled only while
 * the code may open; a person types digits on the lock's keypad, the lock checks its own PIN
 * credentials and reports a LockOperation naming the user, or a LockOperationError, and after too
 * many wrong PINs locks itself out (WrongCodeEntryLimit, set by the bridge to Latchkey's five);
 * the service audits what the bridge reports. The bridge's log is captured and searched for digits.
 */

describe('keypad codes on a Matter lock through the bridge', () => {
  let rig: BridgeRig;
  let devices: VirtualMatterLocks;
  /** In a process of its own, so it alone can go away. */
  let away: VirtualMatterLock;
  const known = (device: VirtualMatterLockDevice) => ({ matter: { pairingCode: device.manualPairingCode, address: { ip: '127.0.0.1', port: device.port } } });

  before(async () => {
    devices = await startVirtualMatterLocks(3);
    away = await startVirtualMatterLock();
    rig = await startBridgeRig([...devices.locks, away].map(known));
  });
  after(async () => {
    await rig?.close();
    await devices?.stop();
    await away?.stop();
  });

  /** The Latchkey lock of the device, online and holding its config, with the device. */
  async function lock(index: number): Promise<{ id: string; device: VirtualMatterLockDevice }> {
    const id = rig.locks[index]!.id;
    await ready(rig, id);
    return { id, device: index < devices.locks.length ? devices.locks[index]! : away };
  }

  /** The user the lock holds for the code, as the lock itself says (found by the slot the bridge logged). */
  async function userOf(device: VirtualMatterLockDevice, codeId: string) {
    const slot = rig.log.lines.findLast((line) => line.msg === 'keypad_slot_written' && line.code === codeId)?.slot as number | undefined;
    return (await device.users()).find((user) => user.userIndex === slot);
  }

  const code = (id: string, terms: CodeTerms) => codeOn(rig, id, terms);
  const press = (id: string, device: VirtualMatterLockDevice, digits: string, expect: { opens: string } | 'refused') => typed(rig, id, () => device.keypad(digits), expect);

  it("opens inside the code's window and weekly hours on the zone's wall clock, and not outside them", async () => {
    const { id, device } = await lock(0);
    const member = await createVerifiedUser(rig.t);
    await shareLock(rig.t, id, rig.admin, member.userId);
    // The same wall-clock hours in Tokyo (now) and in New York (13 or 14 hours away: not now).
    const hours = (zone: string) => [{ start: wallClock('Asia/Tokyo', -60), end: wallClock('Asia/Tokyo', 60), timezone: zone, days: EVERY_DAY }];
    const tokyo = await code(id, { user: member.userId, schedule: hours('Asia/Tokyo') });
    const newYork = await code(id, { guest: 'Night shift', schedule: hours('America/New_York') });
    // On the lock: a user with PIN credential N at index N, enabled only while the code opens.
    const user = await userOf(device, tokyo.id);
    assert.deepEqual(user, { userIndex: user?.userIndex, userStatus: 1, pins: [user?.userIndex] });
    assert.equal((await userOf(device, newYork.id))?.userStatus, 3, 'disabled outside its hours');

    const unlock = await press(id, device, tokyo.digits, { opens: tokyo.id });
    assert.equal(unlock.actor_user_id, member.userId);
    assert.equal(JSON.parse(unlock.details!).source, 'keypad');
    assert.match((await press(id, device, newYork.digits, 'refused')).message, /Night shift's code \(outside_schedule\)/);

    // A window ending in a few seconds: the bridge disables the user at its end.
    const mark = rig.log.lines.length;
    const closing = await code(id, { guest: 'Courier', end: Math.ceil(Date.now() / 1000) + 20 });
    await press(id, device, closing.digits, { opens: closing.id });
    await slotWritten(rig, closing.id, false, mark);
    assert.equal(await device.keypad(closing.digits), 'disabled_user', 'the lock itself refuses it');
    noDigitsLogged(rig, tokyo, newYork, closing);
    // What the lock's keypad takes reached the service (MinPINCodeLength, MaxPINCodeLength).
    const row = await rig.t.service.ctx.db.kysely.selectFrom('locks').select(['code_digits_min', 'code_digits_max']).where('id', '=', id).executeTakeFirstOrThrow();
    assert.deepEqual(row, { code_digits_min: 4, code_digits_max: 8 });
  });

  it('opens once with a one-time code, and no more once its holder is revoked', async () => {
    const { id, device } = await lock(1);
    const once = await code(id, { guest: 'Plumber', maxUses: 1 });
    await press(id, device, once.digits, { opens: once.id });
    await eventually(async () => (await codeOnLock(rig.t, rig.admin, once.id, id))?.status === 'used_up' || undefined, 'the code used up', 20_000);
    await slotWritten(rig, once.id, null);
    assert.equal(await device.keypad(once.digits), 'invalid_credential', 'the PIN is gone from the lock');

    const member = await createVerifiedUser(rig.t);
    await shareLock(rig.t, id, rig.admin, member.userId);
    const theirs = await code(id, { user: member.userId });
    await press(id, device, theirs.digits, { opens: theirs.id });
    await revokeLock(rig.t, id, rig.admin, [member.userId]);
    await slotWritten(rig, theirs.id, null);
    await press(id, device, theirs.digits, 'refused');
    assert.equal(await userOf(device, theirs.id), undefined, 'the user is gone from the lock');
    noDigitsLogged(rig, once, theirs);
  });

  it("audits wrong codes and locks the keypad out after five (the lock's own lockout), the right code refused meanwhile", async () => {
    const { id, device } = await lock(2);
    const right = await code(id, { guest: 'Gardener' });
    const wrong = right.digits === '97531' ? '97532' : '97531';
    for (let i = 0; i < 4; i++) assert.match((await press(id, device, wrong, 'refused')).message, /unknown_code/);
    const fifth = await press(id, device, wrong, 'refused');
    assert.ok(typeof JSON.parse(fifth.details!).lockoutUntil === 'number', fifth.message);
    assert.equal(await device.keypad(right.digits), 'locked_out', 'the lock refuses every PIN meanwhile');
    await slotWritten(rig, right.id, false);
    const alarms = await rig.t.api.get(`/device/${id}/alarms`, { token: rig.admin.authToken });
    assert.ok(alarms.body.open.some((alarm: { kind: string }) => alarm.kind === 'keypad_locked_out'), JSON.stringify(alarms.body));
    noDigitsLogged(rig, right);
  });

  it('applies a change made while the lock was away once it is back, and hears the lock again', async () => {
    const { id, device } = await lock(3);
    const mark = rig.log.lines.length;
    await away.stop();
    await eventually(() => !rig.t.service.ctx.link.isOnline(id) || undefined, 'the lock offline', 30_000);
    const made = await makeCode(rig.t, rig.admin, [id], { guest: 'Electrician' });
    // Never applied while the lock is away (the bridge holds the config, but cannot write the PIN).
    assert.notEqual((await codeOnLock(rig.t, rig.admin, made.id, id))?.sync.state, 'applied');
    await away.start();
    await ready(rig, id);
    await eventually(async () => (await codeOnLock(rig.t, rig.admin, made.id, id))?.sync.state === 'applied' || undefined, 'applied on return', 60_000);
    await eventually(async () => (await userOf(device, made.id))?.userStatus === 1 || undefined, 'the user on the lock', 30_000);
    // The lock's reports come again: the bridge subscribed again once the restarted lock answered
    // (matter.js alone would wait for the lost subscription's max interval to pass).
    await eventually(() => rig.log.lines.slice(mark).findLast((line) => line.lockId === id && line.msg === 'matter_connection')?.state === 'connected' || undefined, 'subscribed to the lock again', 60_000);
    for (const open of [true, false]) {
      await device.act({ do: 'door', open });
      await eventually(async () => ((await lockJson(rig, id)).state.doorOpen === open ? true : undefined), `door ${open ? 'open' : 'closed'} seen after the return`, 30_000);
    }
    await press(id, device, made.digits, { opens: made.id });
    noDigitsLogged(rig, made);
  });
});
