import { type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { validateUnlockBetween } from '../access/schemas.js';
import { decodeBase64Any } from '../crypto/base64.js';
import { errors } from '../errors/catalogue.js';
import {
  AddUserSchema, BatchAddUserSchema, knownMembers, MutateLockSchema, MutateSettingSchema, OPERATION_SCHEMAS, RemoveUserSchema,
  type AddUserOperation, type BatchAddUserOperation, type MutateLockOperation, type MutateSettingOperation, type RemoveUserOperation, type ShareOperation,
} from './operation-schemas.js';

/**
 * The `operation` object of a signed request (spec "Operations"), checked against the TypeBox
 * schemas of operation-schemas.ts (explicit null = absent, unknown members ignored), then against
 * what JSON Schema cannot say (a decodable key, a real time zone and dates, end after start).
 * Each refusal is a 400 naming the field at fault. The result holds only the known fields, in
 * normalised form (user ids lower case), so it can be stored and forwarded as it is.
 */

export const OPERATION_TYPES = ['MUTATE_LOCK', 'ADD_USER', 'BATCH_ADD_USER', 'REMOVE_USER', 'MUTATE_SETTING'] as const;
export type OperationType = (typeof OPERATION_TYPES)[number];
export type Operation = MutateLockOperation | AddUserOperation | BatchAddUserOperation | RemoveUserOperation | MutateSettingOperation;

const invalid = (message: string) => errors.validation(message);

/** `/users/1` → `operation.users[1]`. */
function label(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .reduce((out, segment) => (/^[0-9]+$/.test(segment) ? `${out}[${segment}]` : `${out}.${segment.replace(/~1/g, '/').replace(/~0/g, '~')}`), 'operation');
}

/** The error to report: inside a nullable union, the one of the non-null variant. */
function innermost(error: ValueError): ValueError {
  if (error.type !== ValueErrorType.Union) return error;
  for (const variant of error.errors) {
    const first = variant.First();
    if (first !== undefined && first.type !== ValueErrorType.Null) return innermost(first);
  }
  return error;
}

function message(error: ValueError): string {
  const at = label(error.path);
  if (error.type === ValueErrorType.ObjectRequiredProperty) return `${at}: required`;
  const description = (error.schema as { description?: unknown }).description;
  return `${at}: ${typeof description === 'string' ? `expected ${description}` : error.message.toLowerCase()}`;
}

/** A compiled check of one operation type: the known members of `value`, or a 400. */
export function checker<S extends TSchema>(schema: S) {
  const check: TypeCheck<S> = TypeCompiler.Compile(schema);
  return (value: unknown) => {
    const known = knownMembers(schema, value);
    if (check.Check(known)) return known;
    const first = check.Errors(known).First();
    throw invalid(first === undefined ? 'operation is malformed' : message(innermost(first)));
  };
}

const checkMutateLock = checker(MutateLockSchema);
const checkAddUser = checker(AddUserSchema);
const checkBatchAddUser = checker(BatchAddUserSchema);
const checkRemoveUser = checker(RemoveUserSchema);
const checkMutateSetting = checker(MutateSettingSchema);

/** What JSON Schema cannot say of one share (`at` names it: `operation` or `operation.users[3]`); the user id lower case. */
function checkedShare<S extends ShareOperation>(share: S, at: string): S {
  if (!decodeBase64Any(share.publicKey.replace(/\s+/g, ''))?.length) throw invalid(`${at}.publicKey: expected the invitee's Base64 public key`);
  if (share.start !== undefined && share.end !== undefined && share.end <= share.start) throw invalid(`${at}.end must be after ${at}.start`);
  return { ...share, user: share.user.toLowerCase() };
}

function addUser(value: unknown): AddUserOperation {
  return checkedShare(checkAddUser(value), 'operation');
}

/** Each share checked as ADD_USER's; one user twice is a 400 (which of the two would hold?). */
function batchAddUser(value: unknown): BatchAddUserOperation {
  const op = checkBatchAddUser(value);
  const users = op.users.map((share, i) => checkedShare(share, `operation.users[${i}]`));
  const seen = new Set<string>();
  users.forEach((share, i) => {
    if (seen.has(share.user)) throw invalid(`operation.users[${i}].user: the same user twice`);
    seen.add(share.user);
  });
  return { ...op, users };
}

function removeUser(value: unknown): RemoveUserOperation {
  const op = checkRemoveUser(value);
  return { ...op, users: [...new Set(op.users.map((user) => user.toLowerCase()))] };
}

function mutateSetting(value: unknown): MutateSettingOperation {
  const op = checkMutateSetting(value);
  if (op.unlockBetween) {
    // The time zone database and the calendar, which JSON Schema cannot consult.
    const error = validateUnlockBetween(op.unlockBetween, 'operation.unlockBetween');
    if (error !== null) throw invalid(error);
  }
  if (op.unlockDuration === undefined && op.unlockBetween === undefined) throw invalid('MUTATE_SETTING needs unlockDuration or unlockBetween');
  return op;
}

const PARSERS: Record<OperationType, (value: unknown) => Operation> = {
  MUTATE_LOCK: checkMutateLock,
  ADD_USER: addUser,
  BATCH_ADD_USER: batchAddUser,
  REMOVE_USER: removeUser,
  MUTATE_SETTING: mutateSetting,
};

/** Validates the `operation` claim; 400 (`validation_failed`) naming the field at fault. */
export function parseOperation(value: unknown): Operation {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('operation must be an object');
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string' || !Object.hasOwn(OPERATION_SCHEMAS, type)) throw invalid(`operation.type must be one of ${OPERATION_TYPES.join(', ')}`);
  return PARSERS[type as OperationType](value);
}
