import { Type, type Static } from '@sinclair/typebox';
import { scheduleSchema } from '../access/schemas.js';
import { Email, QueryFlag } from '../accounts/schemas.js';
import { Foreign, NullableSeconds, Role } from '../locks/schemas.js';

/** Request and response shapes of sharing (spec "Users", decisions §2 pending invites). */

/** Legacy RSA key, else the Ed25519 key certified last (both Base64 DER SPKI); null only for a user with neither. */
const PublicKey = Type.Union([Type.String(), Type.Null()], { description: 'legacy RSA key, else the Ed25519 key certified last (Base64 DER SPKI); null when the user has neither' });

const Pending = Type.Boolean({ description: 'true while the share waits for the user to verify their email (held: no access yet, the lock does not know them)' });

/** Who a user is, as both lists show them. */
const UserDetails = {
  userId: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  publicKey: PublicKey,
  displayName: Type.Union([Type.String(), Type.Null()]),
  orphan: Type.Boolean(),
  foreign: Foreign,
};

export const LockUserResponse = Type.Object({
  ...UserDetails,
  role: Role,
  start: NullableSeconds,
  end: NullableSeconds,
  pending: Pending,
  schedule: Type.Optional(scheduleSchema("the member's own weekly hours on this lock; absent: none")),
});
export type LockUserResponse = Static<typeof LockUserResponse>;

export const UserWithLocksResponse = Type.Object({
  ...UserDetails,
  devices: Type.Array(Type.Object({ deviceId: Type.String(), role: Role, start: NullableSeconds, end: NullableSeconds, pending: Pending })),
});
export type UserWithLocksResponse = Static<typeof UserWithLocksResponse>;

export const InviteParams = Type.Object({ email: Email });
export const WaitingSharesResponse = Type.Object({ waiting: Type.Integer({ minimum: 0, description: 'shares held until the email is verified' }) });
export const InviteQuery = Type.Object({
  device: Type.Optional(Type.String({ maxLength: 64, description: 'the lock the invitation is for (one the caller administers): the email names it' })),
  visitor: Type.Optional({ ...QueryFlag, description: 'true: a new invitee is a visitor: the email leads to a web-only visit in the console (a browser key, a time-limited share; no app to install)' }),
});
export const VisitBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 128, description: 'the secret of the visitor\'s link (after # in the emailed link)' }),
  ephemeralKey: Type.String({ maxLength: 512, description: 'the browser\'s Ed25519 public key (Base64 raw or DER SPKI): certified without a code afterwards' }),
});
export const VisitResponse = Type.Object({ userId: Type.String(), authToken: Type.String(), refreshToken: Type.String() });
export const PublicKeyResponse = Type.Object({ id: Type.String(), publicKey: Type.String({ description: 'Base64 DER SubjectPublicKeyInfo (RSA)' }) });
