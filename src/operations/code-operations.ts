import { Type, type Static } from '@sinclair/typebox';
import { ScheduleSchema, validateSchedule } from '../access/schemas.js';
import { errors } from '../errors/catalogue.js';
import { checker } from './parse-operation.js';

/**
 * The signed operations of keypad codes (issue 30, docs/keypad-codes.md): ADD_CODE grants or
 * changes a code on the lock named by the token's `sub`, REMOVE_CODE takes it off. They are sent
 * to the codes API (src/keypad-codes/), never to POST /device/{id}/execute, and an ADD_CODE token
 * travels to the lock in its configuration (device protocol 1.5), where the lock checks that an
 * administrator signed it. The digits are never in a token: a digest of a few digits could be
 * reversed by anyone who reads it; they travel sealed for the lock (src/crypto/keypad-seal.ts).
 */

export const CODE_OPERATION_TYPES = ['ADD_CODE', 'REMOVE_CODE'] as const;
export const MAX_CODE_USES = 10_000;
export const MAX_GUEST_NAME = 80;

const CodeId = Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$', description: 'a code id (UUID)' });
const UnixSeconds = Type.Number({ minimum: 0, description: 'Unix seconds or null' });

export const AddCodeSchema = Type.Object({
  type: Type.Literal('ADD_CODE'),
  code: CodeId,
  /** The holder: a member of the lock (`user`) or a named guest (`guest`), exactly one. */
  user: Type.Optional(Type.String({ pattern: CodeId.pattern, description: 'a user id (UUID)' })),
  guest: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_GUEST_NAME, description: `a guest's name, 1 to ${MAX_GUEST_NAME} characters` })),
  start: Type.Optional(UnixSeconds),
  end: Type.Optional(UnixSeconds),
  /** Weekly hours, the form of usage requirements' time; absent: any time inside the window. */
  schedule: Type.Optional(ScheduleSchema),
  /** Uses across every lock of the code; 1 = one-time; absent: unlimited. */
  maxUses: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_CODE_USES, description: `an integer from 1 to ${MAX_CODE_USES}` })),
});

export const RemoveCodeSchema = Type.Object({
  type: Type.Literal('REMOVE_CODE'),
  code: CodeId,
});

export type AddCodeOperation = Static<typeof AddCodeSchema>;
export type RemoveCodeOperation = Static<typeof RemoveCodeSchema>;
export type CodeOperation = AddCodeOperation | RemoveCodeOperation;

const checkAddCode = checker(AddCodeSchema);
const checkRemoveCode = checker(RemoveCodeSchema);
const invalid = (message: string) => errors.validation(message);

function addCode(value: unknown): AddCodeOperation {
  const op = checkAddCode(value);
  if ((op.user === undefined) === (op.guest === undefined)) throw invalid('operation: exactly one of user and guest');
  if (op.guest !== undefined && op.guest.trim() === '') throw invalid('operation.guest: expected a name');
  if (op.start !== undefined && op.end !== undefined && op.end <= op.start) throw invalid('operation.end must be after operation.start');
  if (op.schedule !== undefined) {
    const error = validateSchedule(op.schedule, 'operation.schedule');
    if (error !== null) throw invalid(error);
  }
  return { ...op, code: op.code.toLowerCase(), ...(op.user === undefined ? {} : { user: op.user.toLowerCase() }), ...(op.guest === undefined ? {} : { guest: op.guest.trim() }) };
}

function removeCode(value: unknown): RemoveCodeOperation {
  const op = checkRemoveCode(value);
  return { ...op, code: op.code.toLowerCase() };
}

/** Validates a code operation; 400 (`validation_failed`) naming the field at fault. */
export function parseCodeOperation(value: unknown): CodeOperation {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('operation must be an object');
  const type = (value as { type?: unknown }).type;
  if (type === 'ADD_CODE') return addCode(value);
  if (type === 'REMOVE_CODE') return removeCode(value);
  throw invalid(`operation.type must be one of ${CODE_OPERATION_TYPES.join(', ')}`);
}

/** An ADD_CODE only (what a lock accepts in its config). */
export function parseAddCode(value: unknown): AddCodeOperation {
  const op = parseCodeOperation(value);
  if (op.type !== 'ADD_CODE') throw invalid('operation.type must be ADD_CODE');
  return op;
}
