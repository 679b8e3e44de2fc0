import { Type, KindGuard, type Static, type TSchema } from '@sinclair/typebox';
import { DayNameSchema, LocalDateSchema, LocalTimeSchema, MAX_EXCEPTION_DATES, ScheduleSchema, TimezoneSchema } from '../access/schemas.js';

/**
 * TypeBox schemas of the `operation` object of a signed request (spec "Operations"), checked by
 * compiled validators in operations.ts, like the lock link's payloads. Clients differ in how they
 * write what they leave out: the official SDK sends every unset optional field as an explicit
 * `null` and may add members of its own. So an optional field given as `null` is the same as an
 * absent one, unknown members are ignored (and dropped), and the known ones keep their type and
 * bound checks. `unlockBetween: null` is the one null that means something: remove the window.
 */

/** Longest unlock the lock accepts, in seconds (a day). */
export const MAX_UNLOCK_SECONDS = 86_400;
export const MAX_USERS_PER_OPERATION = 1000;
/** BATCH_ADD_USER's bound: the `BATCH_SHARING_25` capability every Latchkey lock advertises. */
export const MAX_USERS_PER_BATCH_SHARE = 25;
export const MAX_PUBLIC_KEY_CHARS = 8192;

const UserId = Type.String({
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
  description: 'a user id (UUID)',
});
const UnlockSeconds = Type.Integer({ minimum: 1, maximum: MAX_UNLOCK_SECONDS, description: `an integer number of seconds from 1 to ${MAX_UNLOCK_SECONDS}` });
const UnixSeconds = Type.Number({ minimum: 0, description: 'Unix seconds or null' });

/** The device's position (decisions §4, location requirement); any operation may carry it. */
export const OperationLocationSchema = Type.Object(
  {
    latitude: Type.Number({ minimum: -90, maximum: 90 }),
    longitude: Type.Number({ minimum: -180, maximum: 180 }),
    accuracy: Type.Number({ minimum: 0 }),
  },
  { description: '{latitude (-90..90), longitude (-180..180), accuracy (metres, 0 or more)}' },
);
const location = Type.Optional(OperationLocationSchema);

export const MutateLockSchema = Type.Object({
  type: Type.Literal('MUTATE_LOCK'),
  /** false unlocks, true locks. */
  locked: Type.Boolean({ description: 'true or false' }),
  /** Seconds the lock stays unlocked, instead of its unlockDuration (device protocol). */
  duration: Type.Optional(UnlockSeconds),
  location,
});

/** One share: ADD_USER's members, and each of BATCH_ADD_USER's `users`. */
const share = {
  user: UserId,
  /** The invitee's public key, Base64 as the spec exchanges keys (decoded in parse-operation.ts). */
  publicKey: Type.String({ maxLength: MAX_PUBLIC_KEY_CHARS, description: "the invitee's Base64 public key" }),
  role: Type.Optional(Type.Union([Type.Literal('ADMIN'), Type.Literal('USER')], { description: 'ADMIN or USER' })),
  /** Unix seconds; absent means immediately / never expires. */
  start: Type.Optional(UnixSeconds),
  end: Type.Optional(UnixSeconds),
  /** Shared decisions §8: the share's own weekly hours; null clears them, absent keeps them (none for a new share). */
  schedule: Type.Optional(Type.Union([ScheduleSchema, Type.Null()])),
};

export const AddUserSchema = Type.Object({
  type: Type.Literal('ADD_USER'),
  ...share,
  location,
});

/** BATCH_ADD_USER (the docs' batch-share-a-lock-v2): up to 25 shares in one signed operation, all or none. */
export const BatchAddUserSchema = Type.Object({
  type: Type.Literal('BATCH_ADD_USER'),
  users: Type.Array(Type.Object(share), {
    minItems: 1,
    maxItems: MAX_USERS_PER_BATCH_SHARE,
    description: `an array of 1 to ${MAX_USERS_PER_BATCH_SHARE} shares {user, publicKey, role, start, end, schedule}`,
  }),
  location,
});

export const RemoveUserSchema = Type.Object({
  type: Type.Literal('REMOVE_USER'),
  users: Type.Array(UserId, { minItems: 1, maxItems: MAX_USERS_PER_OPERATION, description: `an array of 1 to ${MAX_USERS_PER_OPERATION} user ids` }),
  location,
});

/** The lock's automatic unlock schedule (the settings' window, unknown members ignored here). */
export const OperationWindowSchema = Type.Object({
  start: LocalTimeSchema,
  end: LocalTimeSchema,
  timezone: TimezoneSchema,
  days: Type.Array(DayNameSchema, { minItems: 1, maxItems: 7, uniqueItems: true, description: 'an array of one to seven distinct day names, MONDAY to SUNDAY' }),
  exceptions: Type.Optional(Type.Array(LocalDateSchema, { maxItems: MAX_EXCEPTION_DATES, description: `an array of at most ${MAX_EXCEPTION_DATES} dates YYYY-MM-DD` })),
});

export const MutateSettingSchema = Type.Object({
  type: Type.Literal('MUTATE_SETTING'),
  unlockDuration: Type.Optional(UnlockSeconds),
  /** null removes the window; absent leaves it unchanged. */
  unlockBetween: Type.Optional(Type.Union([OperationWindowSchema, Type.Null()])),
  location,
});

export const OPERATION_SCHEMAS = {
  MUTATE_LOCK: MutateLockSchema,
  ADD_USER: AddUserSchema,
  BATCH_ADD_USER: BatchAddUserSchema,
  REMOVE_USER: RemoveUserSchema,
  MUTATE_SETTING: MutateSettingSchema,
} as const;

export type MutateLockOperation = Static<typeof MutateLockSchema>;
export type AddUserOperation = Static<typeof AddUserSchema>;
export type BatchAddUserOperation = Static<typeof BatchAddUserSchema>;
/** One share of an ADD_USER or a BATCH_ADD_USER. */
export type ShareOperation = Omit<AddUserOperation, 'type' | 'location'>;
export type RemoveUserOperation = Static<typeof RemoveUserSchema>;
export type MutateSettingOperation = Static<typeof MutateSettingSchema>;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const acceptsNull = (schema: TSchema): boolean => KindGuard.IsNull(schema) || (KindGuard.IsUnion(schema) && schema.anyOf.some(acceptsNull));

/**
 * `value` as `schema` reads it: members the schema does not name are dropped, and an optional
 * member given as `null` is dropped too (absent), unless the schema gives null a meaning. The
 * result is then checked against the schema as it is. The schemas are this module's own, so
 * their kind is read from the Kind symbol (KindGuard), not checked over the whole schema again on
 * every unlock (TypeGuard walked every member's schema: ~1.5 % of the service's unlock profile).
 */
export function knownMembers(schema: TSchema, value: unknown): unknown {
  if (KindGuard.IsObject(schema) && isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value)) {
      // Own members of the schema only: `__proto__`, `constructor` or `toString` in the JSON name
      // no field (assigning `__proto__` would even hand the result a prototype to read fields from).
      const member = Object.hasOwn(schema.properties, name) ? schema.properties[name] : undefined;
      if (member === undefined || (item === null && KindGuard.IsOptional(member) && !acceptsNull(member))) continue;
      out[name] = knownMembers(member, item);
    }
    return out;
  }
  if (KindGuard.IsArray(schema) && Array.isArray(value)) return value.map((item) => knownMembers(schema.items, item));
  if (KindGuard.IsUnion(schema) && value !== null) {
    const objectVariant = schema.anyOf.find((variant) => KindGuard.IsObject(variant));
    if (objectVariant !== undefined) return knownMembers(objectVariant, value);
  }
  return value;
}
