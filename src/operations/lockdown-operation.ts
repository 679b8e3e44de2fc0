import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { errors } from '../errors/catalogue.js';
import { knownMembers } from './operation-schemas.js';

/**
 * The signed operations of a lockdown (issue 31 point 3), Latchkey's own beside the spec's: the
 * official SDK knows none of them, so they have their own endpoint (POST /lockdown) and are read
 * by their own parser, both by the service and by the lock (src/lock-edge/lockdown.ts). The token's
 * `sub` names what was locked down (a lock, a site, or the signer for all their locks); `locks`
 * lists the locks it holds, and a lock acts only on a token that names it.
 */

export const MAX_LOCKDOWN_LOCKS = 500;
export const MAX_RESPONDERS = 50;
export const MAX_LIFT_QUORUM = 10;

const Uuid = (description: string) => Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$', description });
const Locks = Type.Array(Uuid('a lock id (UUID)'), { minItems: 1, maxItems: MAX_LOCKDOWN_LOCKS, description: `an array of 1 to ${MAX_LOCKDOWN_LOCKS} lock ids` });

export const LockdownSchema = Type.Object({
  type: Type.Literal('LOCKDOWN'),
  /** Chosen by the client (a UUID): what the lifts name. */
  lockdownId: Uuid('a lockdown id (UUID)'),
  locks: Locks,
  /** Members whose unlocks the locks still carry out. */
  responders: Type.Optional(Type.Array(Uuid('a user id (UUID)'), { maxItems: MAX_RESPONDERS, description: `an array of at most ${MAX_RESPONDERS} user ids` })),
  /** Distinct administrators whose LIFT_LOCKDOWN it takes to lift it; 1 when absent. */
  liftQuorum: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIFT_QUORUM, description: `an integer from 1 to ${MAX_LIFT_QUORUM}` })),
});

export const LiftLockdownSchema = Type.Object({
  type: Type.Literal('LIFT_LOCKDOWN'),
  lockdownId: Uuid('a lockdown id (UUID)'),
  locks: Locks,
});

export type LockdownOperation = { type: 'LOCKDOWN'; lockdownId: string; locks: string[]; responders: string[]; liftQuorum: number };
export type LiftLockdownOperation = Static<typeof LiftLockdownSchema>;
export type LockdownFamilyOperation = LockdownOperation | LiftLockdownOperation;

const checkLockdown = TypeCompiler.Compile(LockdownSchema);
const checkLift = TypeCompiler.Compile(LiftLockdownSchema);

const lower = (ids: readonly string[]): string[] => [...new Set(ids.map((id) => id.toLowerCase()))];

/** The `operation` of a lockdown token, ids lower case and each once; 400 naming what is wrong. */
export function parseLockdownOperation(value: unknown): LockdownFamilyOperation {
  const type = (value as { type?: unknown } | null)?.type;
  if (type === 'LOCKDOWN') {
    const known = knownMembers(LockdownSchema, value);
    if (!checkLockdown.Check(known)) throw errors.validation(`operation: ${checkLockdown.Errors(known).First()?.message.toLowerCase() ?? 'malformed'}`);
    return { type, lockdownId: known.lockdownId.toLowerCase(), locks: lower(known.locks), responders: lower(known.responders ?? []), liftQuorum: known.liftQuorum ?? 1 };
  }
  if (type === 'LIFT_LOCKDOWN') {
    const known = knownMembers(LiftLockdownSchema, value);
    if (!checkLift.Check(known)) throw errors.validation(`operation: ${checkLift.Errors(known).First()?.message.toLowerCase() ?? 'malformed'}`);
    return { type, lockdownId: known.lockdownId.toLowerCase(), locks: lower(known.locks) };
  }
  throw errors.validation('operation.type must be LOCKDOWN or LIFT_LOCKDOWN');
}
