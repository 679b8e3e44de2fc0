import { validateUnlockBetween } from '../access/schemas.js';
import type { MemberRole, OperationLocation, UnlockBetweenWindow } from '../access/types.js';
import { decodeBase64Any } from '../crypto/base64.js';
import { errors } from '../errors/catalogue.js';

/**
 * The `operation` object of a signed request (spec "Operations"), validated by hand so that each
 * refusal says exactly which field is wrong (400). The result holds only the known fields, in
 * normalised form (user ids lower case), so it can be stored and forwarded as it is.
 */

export const OPERATION_TYPES = ['MUTATE_LOCK', 'ADD_USER', 'REMOVE_USER', 'MUTATE_SETTING'] as const;
export type OperationType = (typeof OPERATION_TYPES)[number];

/** Every operation may carry the device's position (decisions §4, location requirement). */
interface OperationBase {
  location?: OperationLocation;
}

export interface MutateLockOperation extends OperationBase {
  type: 'MUTATE_LOCK';
  /** false unlocks, true locks. */
  locked: boolean;
  /** Seconds the lock stays unlocked, instead of its unlockDuration (device protocol). */
  duration?: number;
}

export interface AddUserOperation extends OperationBase {
  type: 'ADD_USER';
  user: string;
  /** The invitee's public key, Base64 as the spec exchanges keys. */
  publicKey: string;
  role?: MemberRole;
  /** Unix seconds; null or absent means immediately / never expires. */
  start?: number | null;
  end?: number | null;
}

export interface RemoveUserOperation extends OperationBase {
  type: 'REMOVE_USER';
  users: string[];
}

export interface MutateSettingOperation extends OperationBase {
  type: 'MUTATE_SETTING';
  unlockDuration?: number;
  /** null removes the window; absent leaves it unchanged. */
  unlockBetween?: UnlockBetweenWindow | null;
}

export type Operation = MutateLockOperation | AddUserOperation | RemoveUserOperation | MutateSettingOperation;

/** Longest unlock the lock accepts, in seconds (a day). */
export const MAX_UNLOCK_SECONDS = 86_400;
export const MAX_USERS_PER_OPERATION = 1000;
const MAX_PUBLIC_KEY_CHARS = 8192;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Fields = Record<string, unknown>;
const invalid = (message: string) => errors.validation(message);

function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function userId(value: unknown, at: string): string {
  if (typeof value !== 'string' || !UUID.test(value)) throw invalid(`${at} must be a user id (UUID)`);
  return value.toLowerCase();
}

function unlockSeconds(value: unknown, at: string): number {
  if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > MAX_UNLOCK_SECONDS) {
    throw invalid(`${at} must be an integer number of seconds from 1 to ${MAX_UNLOCK_SECONDS}`);
  }
  return value as number;
}

/** Unix seconds or null; undefined when the field is absent. */
function optionalInstant(value: unknown, at: string): number | null | undefined {
  if (value === undefined || value === null) return value;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw invalid(`${at} must be Unix seconds or null`);
  return value;
}

function parseLocation(value: unknown): OperationLocation | undefined {
  if (value === undefined || value === null) return undefined;
  const ok =
    isObject(value) &&
    typeof value.latitude === 'number' && Math.abs(value.latitude) <= 90 &&
    typeof value.longitude === 'number' && Math.abs(value.longitude) <= 180 &&
    typeof value.accuracy === 'number' && Number.isFinite(value.accuracy) && value.accuracy >= 0;
  if (!ok) throw invalid('operation.location must be {latitude (-90..90), longitude (-180..180), accuracy (metres, 0 or more)}');
  return { latitude: value.latitude as number, longitude: value.longitude as number, accuracy: value.accuracy as number };
}

function parseMutateLock(op: Fields): MutateLockOperation {
  if (typeof op.locked !== 'boolean') throw invalid('operation.locked must be true or false');
  const result: MutateLockOperation = { type: 'MUTATE_LOCK', locked: op.locked };
  if (op.duration !== undefined && op.duration !== null) result.duration = unlockSeconds(op.duration, 'operation.duration');
  return result;
}

function parseAddUser(op: Fields): AddUserOperation {
  const user = userId(op.user, 'operation.user');
  const publicKey = op.publicKey;
  if (typeof publicKey !== 'string' || publicKey.length > MAX_PUBLIC_KEY_CHARS || !decodeBase64Any(publicKey.replace(/\s+/g, ''))?.length) {
    throw invalid('operation.publicKey must be the invitee\'s Base64 public key');
  }
  const result: AddUserOperation = { type: 'ADD_USER', user, publicKey };
  if (op.role !== undefined && op.role !== null) {
    if (op.role !== 'ADMIN' && op.role !== 'USER') throw invalid('operation.role must be ADMIN or USER');
    result.role = op.role;
  }
  const start = optionalInstant(op.start, 'operation.start');
  const end = optionalInstant(op.end, 'operation.end');
  if (typeof start === 'number' && typeof end === 'number' && end <= start) throw invalid('operation.end must be after operation.start');
  if (start !== undefined) result.start = start;
  if (end !== undefined) result.end = end;
  return result;
}

function parseRemoveUser(op: Fields): RemoveUserOperation {
  const users = op.users;
  if (!Array.isArray(users) || users.length === 0 || users.length > MAX_USERS_PER_OPERATION) {
    throw invalid(`operation.users must be an array of 1 to ${MAX_USERS_PER_OPERATION} user ids`);
  }
  const ids = users.map((user, index) => userId(user, `operation.users[${index}]`));
  return { type: 'REMOVE_USER', users: [...new Set(ids)] };
}

function parseMutateSetting(op: Fields): MutateSettingOperation {
  const result: MutateSettingOperation = { type: 'MUTATE_SETTING' };
  if (op.unlockDuration !== undefined) result.unlockDuration = unlockSeconds(op.unlockDuration, 'operation.unlockDuration');
  if (op.unlockBetween === null) result.unlockBetween = null;
  else if (op.unlockBetween !== undefined) {
    const message = validateUnlockBetween(op.unlockBetween, 'operation.unlockBetween');
    if (message !== null) throw invalid(message);
    const { start, end, timezone, days, exceptions } = op.unlockBetween as UnlockBetweenWindow;
    result.unlockBetween = { start, end, timezone, days: [...days], ...(exceptions === undefined ? {} : { exceptions: [...exceptions] }) };
  }
  if (result.unlockDuration === undefined && result.unlockBetween === undefined) {
    throw invalid('MUTATE_SETTING needs unlockDuration or unlockBetween');
  }
  return result;
}

const PARSERS: Record<OperationType, (op: Fields) => Operation> = {
  MUTATE_LOCK: parseMutateLock,
  ADD_USER: parseAddUser,
  REMOVE_USER: parseRemoveUser,
  MUTATE_SETTING: parseMutateSetting,
};

/** Validates the `operation` claim; 400 (`validation_failed`) naming the field at fault. */
export function parseOperation(value: unknown): Operation {
  if (!isObject(value)) throw invalid('operation must be an object');
  const type = value.type;
  if (typeof type !== 'string' || !Object.hasOwn(PARSERS, type)) throw invalid(`operation.type must be one of ${OPERATION_TYPES.join(', ')}`);
  const operation = PARSERS[type as OperationType](value);
  const location = parseLocation(value.location);
  if (location !== undefined) operation.location = location;
  return operation;
}
