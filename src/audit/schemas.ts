import { Type, type Static } from '@sinclair/typebox';

/** The most entries one page returns; a larger `limit` is lowered to it (clients asking for "all" still get an answer). */
export const MAX_PAGE = 1000;
export const DEFAULT_PAGE = 100;
/** The most entries a start/end range without `limit` returns whole; a larger range is a 400 naming the cap. */
export const MAX_RANGE = 10_000;

const NullableString = Type.Union([Type.String(), Type.Null()]);

export const LogQuery = Type.Object({
  start: Type.Optional(Type.Number({ description: 'earliest timestamp, Unix seconds, inclusive' })),
  end: Type.Optional(Type.Number({ description: 'latest timestamp, Unix seconds, inclusive' })),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: `entries per page, at most ${MAX_PAGE}; without it, a request naming start or end gets the whole range (400 beyond ${MAX_RANGE} entries), else ${DEFAULT_PAGE}`,
    }),
  ),
});
export type LogQuery = Static<typeof LogQuery>;


/** Who acted or was acted on, as the official SDK reads it; `userId` names the lock for events the lock itself reports. */
export const AuditParty = Type.Object({
  userId: Type.String({ description: 'the user; the lock id for events the lock reports itself' }),
  email: NullableString,
  displayName: NullableString,
  ip: Type.Union([Type.String(), Type.Null()], { description: "the issuer's address, as the service read it (TRUST_PROXY); null without a request of theirs, and always for a subject" }),
});

/** The SDK's BasicAuditUserAgentResponse: the official SDK named by the actor's User-Agent, else null. */
const AuditUserAgent = Type.Union([
  Type.Object({ type: Type.String({ description: 'the SDK\'s AuditUserAgentType, e.g. KMP_SDK_JVM' }), version: Type.Union([Type.String(), Type.Null()]) }),
  Type.Null(),
], { description: 'the official SDK the actor used (from its User-Agent), else null' });

/**
 * Lock audit v1, or v2 with `email` and `displayName` and, for the official SDK, the user-audit
 * fields too (one schema, so serialisation never drops v2's fields).
 */
export const LockAuditEntry = Type.Object({
  timestamp: Type.Number({ description: 'Unix seconds' }),
  type: Type.String(),
  user: Type.Union([Type.String(), Type.Null()], { description: 'the actor' }),
  email: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "the actor's email (v2)" })),
  displayName: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "the actor's display name (v2)" })),
  message: Type.String(),
  deviceId: Type.Optional(Type.String({ description: 'the lock (v2)' })),
  issuer: Type.Optional(AuditParty),
  subject: Type.Optional(Type.Union([AuditParty, Type.Null()], { description: 'the user acted on (sharing types), else null (v2)' })),
  rejected: Type.Optional(Type.Boolean({ description: 'v2' })),
  rejectionReason: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'why the lock or service refused, else null (v2)' })),
  userAgent: Type.Optional(AuditUserAgent),
});
export type LockAuditEntry = Static<typeof LockAuditEntry>;

export const UserAuditEntry = Type.Object({
  deviceId: Type.String(),
  timestamp: Type.Number({ description: 'Unix seconds' }),
  type: Type.String(),
  issuer: Type.Object({ userId: Type.String({ description: 'the actor; the lock id for events the lock reports itself' }), ip: Type.Optional(NullableString) }),
  subject: Type.Optional(Type.Object({ userId: Type.String(), email: NullableString })),
  rejected: Type.Boolean(),
  rejectionReason: Type.Union([Type.String(), Type.Null()]),
  userAgent: Type.Optional(AuditUserAgent),
});
export type UserAuditEntry = Static<typeof UserAuditEntry>;
