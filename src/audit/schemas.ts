import { Type, type Static } from '@sinclair/typebox';

/** The most entries one page returns; a larger `limit` is lowered to it (clients asking for "all" still get an answer). */
export const MAX_PAGE = 1000;
export const DEFAULT_PAGE = 100;

export const LogQuery = Type.Object({
  start: Type.Optional(Type.Number({ description: 'earliest timestamp, Unix seconds, inclusive' })),
  end: Type.Optional(Type.Number({ description: 'latest timestamp, Unix seconds, inclusive' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: `entries per page, default ${DEFAULT_PAGE}, at most ${MAX_PAGE}` })),
});
export type LogQuery = Static<typeof LogQuery>;

const NullableString = Type.Union([Type.String(), Type.Null()]);

/** Lock audit v1, or v2 with `email` and `displayName` (one schema, so serialisation never drops v2's fields). */
export const LockAuditEntry = Type.Object({
  timestamp: Type.Number({ description: 'Unix seconds' }),
  type: Type.String(),
  user: Type.Union([Type.String(), Type.Null()], { description: 'the actor' }),
  email: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "the actor's email (v2)" })),
  displayName: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "the actor's display name (v2)" })),
  message: Type.String(),
});
export type LockAuditEntry = Static<typeof LockAuditEntry>;

export const UserAuditEntry = Type.Object({
  deviceId: Type.String(),
  timestamp: Type.Number({ description: 'Unix seconds' }),
  type: Type.String(),
  issuer: Type.Object({ userId: NullableString }),
  subject: Type.Optional(Type.Object({ userId: Type.String(), email: NullableString })),
  rejected: Type.Boolean(),
});
export type UserAuditEntry = Static<typeof UserAuditEntry>;
