import { setTimeout as sleep } from 'node:timers/promises';
import type { ClientCommandOptions } from '@project-chip/matter.js/cluster';

/**
 * A Matter lock's keypad codes as users with one PIN credential each (Door Lock cluster, features
 * PIN credential and user, Matter 1.3 §5.2.10): code slot N is user N holding PIN credential N,
 * enabled (OccupiedEnabled) only while the code may open, disabled (OccupiedDisabled) otherwise,
 * cleared (ClearUser, which clears its credential) once the code is gone. The lock checks typed
 * digits itself and says which user opened (LockOperation's userIndex).
 *
 * Why no week-day or year-day schedules: a code's weekly hours are on its own time zone's wall
 * clock (daylight saving included) and its holder's may be on another, while a Matter lock's
 * schedules are on its one local clock, which the bridge cannot read (docs/decisions.md, issue 30).
 * The bridge, which evaluates them exactly, enables and disables the user at each edge instead.
 */

// Door Lock cluster values (Matter 1.3 §5.2.6).
const DATA_ADD = 0;
const DATA_MODIFY = 2;
const USER_ENABLED = 1;
const USER_DISABLED = 3;
const UNRESTRICTED_USER = 0;
const CREDENTIAL_PIN = 1;
const RULE_SINGLE = 0;
/** Status of a SetCredential response: Success; Failure (1) is a PIN another user holds; Occupied, InvalidCommand… */
const STATUS_SUCCESS = 0;

/** UserCodeTemporaryDisableTime's largest value (uint8, seconds). */
const MAX_DISABLE_SECONDS = 255;
/** How long one user or credential write may take, milliseconds (matter.js may hold it while the lock is away). */
const WRITE_MS = 15_000;

/** The timed window of a user or credential write (SetUser, SetCredential and ClearUser are timed commands), milliseconds. */
export const PIN_WRITE_TIMED_MS = 10_000;

/** What the bridge uses of matter.js's Door Lock cluster client for codes (present with the PIN credential and user features). */
export interface PinUserClient {
  readonly supportedFeatures: { pinCredential?: boolean; user?: boolean };
  getNumberOfTotalUsersSupportedAttribute?(requestFromRemote?: boolean): Promise<number | undefined>;
  getNumberOfPinUsersSupportedAttribute?(requestFromRemote?: boolean): Promise<number | undefined>;
  getMinPinCodeLengthAttribute?(requestFromRemote?: boolean): Promise<number | undefined>;
  getMaxPinCodeLengthAttribute?(requestFromRemote?: boolean): Promise<number | undefined>;
  getWrongCodeEntryLimitAttribute?(requestFromRemote?: boolean): Promise<number | undefined>;
  getUserCodeTemporaryDisableTimeAttribute?(requestFromRemote?: boolean): Promise<number | undefined>;
  setWrongCodeEntryLimitAttribute?(value: number): Promise<void>;
  setUserCodeTemporaryDisableTimeAttribute?(value: number): Promise<void>;
  getUser?(request: { userIndex: number }): Promise<{ userStatus: number | null; credentials: Array<{ credentialType: number; credentialIndex: number }> | null }>;
  setUser?(request: { operationType: number; userIndex: number; userName: string | null; userUniqueId: number | null; userStatus: number | null; userType: number | null; credentialRule: number | null }, options: ClientCommandOptions): Promise<unknown>;
  setCredential?(request: { operationType: number; credential: { credentialType: number; credentialIndex: number }; credentialData: Uint8Array; userIndex: number | null; userStatus: number | null; userType: number | null }, options: ClientCommandOptions): Promise<{ status: number }>;
  clearUser?(request: { userIndex: number }, options: ClientCommandOptions): Promise<unknown>;
}

/** What a lock's keypad takes, as it says. */
export interface PinKeypad {
  /** Users with a PIN the lock holds (slots 1…slots). */
  slots: number;
  digits: { min: number; max: number };
}

/** The lock's own lockout after wrong codes: what Latchkey's keypad does (src/lock-edge/keypad.ts). */
export interface Lockout {
  wrongEntries: number;
  seconds: number;
}

/** Within WRITE_MS, or a rejection (matter.js may hold a request for a lock that went away). */
async function answered<T>(request: Promise<T>): Promise<T> {
  const late = Symbol('late');
  const result = await Promise.race([request, sleep(WRITE_MS, late, { ref: false })]);
  if (result === late) throw new Error('the lock did not answer');
  return result as T;
}

/**
 * The lock's users and PIN lengths, and its lockout set to Latchkey's (WrongCodeEntryLimit and
 * UserCodeTemporaryDisableTime are mandatory with PINs and writable); null for a lock without PINs.
 */
export async function readPinKeypad(client: PinUserClient, lockout: Lockout): Promise<PinKeypad | null> {
  if (client.supportedFeatures.pinCredential !== true || client.supportedFeatures.user !== true) return null;
  const [users, pins, min, max, limit, disable] = await Promise.all([
    client.getNumberOfTotalUsersSupportedAttribute?.(true),
    client.getNumberOfPinUsersSupportedAttribute?.(true),
    client.getMinPinCodeLengthAttribute?.(true),
    client.getMaxPinCodeLengthAttribute?.(true),
    client.getWrongCodeEntryLimitAttribute?.(true),
    client.getUserCodeTemporaryDisableTimeAttribute?.(true),
  ].map((read) => answered(read ?? Promise.resolve(undefined))));
  if (users === undefined || pins === undefined || min === undefined || max === undefined) return null;
  if (limit !== lockout.wrongEntries) await answered(client.setWrongCodeEntryLimitAttribute?.(lockout.wrongEntries) ?? Promise.resolve());
  // An 8-bit attribute (1–255 s): the bridge keeps every user disabled for the rest of a longer lockout.
  const seconds = Math.min(lockout.seconds, MAX_DISABLE_SECONDS);
  if (disable !== seconds) await answered(client.setUserCodeTemporaryDisableTimeAttribute?.(seconds) ?? Promise.resolve());
  return { slots: Math.min(users, pins), digits: { min, max } };
}

/**
 * Code slot `slot` as user `slot` with PIN credential `slot`: its status first (so a code being
 * disabled never opens meanwhile), then the PIN; or the user cleared with its credential. `timed`:
 * the timed-invoke options (MatterApi.timed(PIN_WRITE_TIMED_MS)).
 */
export async function writePinUser(client: PinUserClient, slot: number, content: { digits: string; enabled: boolean } | null, timed: ClientCommandOptions): Promise<void> {
  if (client.getUser === undefined || client.setUser === undefined || client.setCredential === undefined || client.clearUser === undefined) throw new Error('the lock holds no users with PINs');
  if (content === null) return void (await answered(client.clearUser({ userIndex: slot }, timed)));
  const user = await answered(client.getUser({ userIndex: slot }));
  const userStatus = content.enabled ? USER_ENABLED : USER_DISABLED;
  if (user.userStatus === null) {
    await answered(client.setUser({ operationType: DATA_ADD, userIndex: slot, userName: 'Latchkey', userUniqueId: null, userStatus, userType: UNRESTRICTED_USER, credentialRule: RULE_SINGLE }, timed));
  } else if (user.userStatus !== userStatus) {
    await answered(client.setUser({ operationType: DATA_MODIFY, userIndex: slot, userName: null, userUniqueId: null, userStatus, userType: null, credentialRule: null }, timed));
  }
  const held = (user.credentials ?? []).some((c) => c.credentialType === CREDENTIAL_PIN && c.credentialIndex === slot);
  const credential = { credentialType: CREDENTIAL_PIN, credentialIndex: slot };
  const set = await answered(client.setCredential({ operationType: held ? DATA_MODIFY : DATA_ADD, credential, credentialData: new TextEncoder().encode(content.digits), userIndex: slot, userStatus: null, userType: null }, timed));
  if (set.status !== STATUS_SUCCESS) throw new Error(`the lock refused the PIN (SetCredential status ${set.status})`);
}
