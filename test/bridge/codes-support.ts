import { auditEntriesOf } from '../helpers/locks.js';
import { eventually } from '../helpers/wait.js';
import { assertNoDigits, codeOnLock, makeCode, type CodeTerms } from '../keypad/support.js';
import type { BridgeRig } from './support.js';

/**
 * Keypad codes on real locks through the bridge (issue 30 point 3), whatever the stack: codes made
 * through the API and waited for on the lock, the keypad entries the service audited, the slot
 * writes the bridge logged, and its log searched for digits.
 */

export const EVERY_DAY = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];

/** HH:mm on `zone`'s wall clock, `offsetMinutes` from now (kept inside today: 00:00–23:59). */
export function wallClock(zone: string, offsetMinutes: number): string {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(new Date());
  const minutes = Number(parts.find((p) => p.type === 'hour')!.value) * 60 + Number(parts.find((p) => p.type === 'minute')!.value);
  const at = Math.min(23 * 60 + 59, Math.max(0, minutes + offsetMinutes));
  return `${String(Math.floor(at / 60)).padStart(2, '0')}:${String(at % 60).padStart(2, '0')}`;
}

/** A code made through the API on `lockId` and held by the lock (sync applied: written into the real lock). */
export async function codeOn(rig: BridgeRig, lockId: string, terms: CodeTerms): Promise<{ id: string; digits: string }> {
  const code = await makeCode(rig.t, rig.admin, [lockId], terms);
  await eventually(async () => (await codeOnLock(rig.t, rig.admin, code.id, lockId))?.sync.state === 'applied' || undefined, 'the code applied on the lock', 30_000).catch(async (err: Error) => {
    const keypadLines = rig.log.lines.filter((line) => line.lockId === lockId && /keypad|config/.test(String(line.msg))).slice(-8);
    throw new Error(`${err.message}: ${JSON.stringify((await codeOnLock(rig.t, rig.admin, code.id, lockId))?.sync)}; the bridge: ${JSON.stringify(keypadLines)}`);
  });
  return code;
}

/** The lock's DOOR_UNLOCK entries from its keypad: accepted ones naming `code`, or refused ones. */
export const keypadEntries = async (rig: BridgeRig, lockId: string, which: { code: string } | 'refused') => (await auditEntriesOf(rig.t, lockId))
  .filter((e) => e.type === 'DOOR_UNLOCK' && (which === 'refused' ? e.rejected === 1 : e.rejected === 0 && JSON.parse(e.details ?? '{}').code === which.code));

/** Someone types at the lock's keypad (`press`); resolves with the one more entry of the kind expected the service audited. */
export async function typed(rig: BridgeRig, lockId: string, press: () => Promise<unknown>, expect: { opens: string } | 'refused') {
  const which = expect === 'refused' ? 'refused' : { code: expect.opens };
  const before = (await keypadEntries(rig, lockId, which)).length;
  await press();
  return eventually(async () => (await keypadEntries(rig, lockId, which))[before], expect === 'refused' ? 'the refused entry audited' : 'the keypad unlock audited', 20_000);
}

/** The bridge wrote the code's slot with `enabled` (or cleared it, null), in its log after line `from`. */
export const slotWritten = (rig: BridgeRig, codeId: string, enabled: boolean | null, from = 0) => eventually(() => rig.log.lines.slice(from).some((line) => line.code === codeId
  && (enabled === null ? line.msg === 'keypad_slot_cleared' : line.msg === 'keypad_slot_written' && line.enabled === enabled)) || undefined, `the slot ${enabled === null ? 'cleared' : enabled ? 'enabled' : 'disabled'}`, 30_000);

/** No line of the bridge's log holds the digits of these codes. */
export function noDigitsLogged(rig: BridgeRig, ...codes: Array<{ digits: string }>): void {
  for (const { digits } of codes) assertNoDigits(rig.log.lines, digits, "the bridge's log");
}
