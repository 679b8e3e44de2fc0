import { Type, type Static } from '@sinclair/typebox';
import { UUID_PATTERN } from '../crypto/random.js';
import { PlainText } from '../http/plain-text.js';

export const Email = Type.String({ format: 'email', minLength: 3, maxLength: 254 });
export const Password = Type.String({ minLength: 8, maxLength: 1024 });
/** Plain text (src/http/plain-text.ts): a name with CR/LF could forge headers or lines wherever it is shown (issue 15). */
export const DisplayName = PlainText({ minLength: 1, maxLength: 255 });

export const Credentials = Type.Object({ email: Email, password: Type.String({ minLength: 1, maxLength: 1024 }) });
export type Credentials = Static<typeof Credentials>;

// A null displayName is taken as absent: clients that serialise unset fields as null send it.
export const Registration = Type.Object({
  email: Email,
  password: Password,
  displayName: Type.Optional(Type.Union([DisplayName, Type.Null()])),
  ephemeralKey: Type.Optional(
    Type.String({ minLength: 1, maxLength: 1024, description: 'Ed25519 public key (Base64, raw or DER): the first POST /auth/certificate with it needs no secondary check' }),
  ),
});
export type Registration = Static<typeof Registration>;

/** A boolean as HTTP clients write one in a query: true/false in any case (Python sends True), or 1/0. */
export const QueryFlag = Type.String({ pattern: '^(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|1|0)$', description: 'true or false (any case), 1 or 0' });

export function isTrueFlag(flag: string | undefined): boolean {
  return flag === '1' || flag?.toLowerCase() === 'true';
}

export const RegistrationQuery = Type.Object({
  force: Type.Optional(QueryFlag),
  acceptInvite: Type.Optional({ ...QueryFlag, description: 'v2/v3: take over a pending invite of this email as v1 does (its shares held until the email is verified) instead of 409' }),
});

export const TokenPairResponse = Type.Object({
  authToken: Type.String(),
  refreshToken: Type.Optional(Type.String()),
  privateKey: Type.Optional(Type.String({ description: 'Base64 DER PKCS#8 RSA private key (v1 login, v1/v2 registration)' })),
  publicKey: Type.Optional(Type.String({ description: 'Base64 DER SubjectPublicKeyInfo RSA public key' })),
});

export const AccountResponse = Type.Object({
  publicKey: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()]),
  displayName: Type.Union([Type.String(), Type.Null()]),
  emailVerified: Type.Boolean(),
});

export const AccountUpdate = Type.Object({ displayName: DisplayName });
export const PasswordChange = Type.Object({ oldPassword: Type.String({ minLength: 1, maxLength: 1024 }), newPassword: Password });
export const VerifyQuery = Type.Object({ code: Type.String({ minLength: 1, maxLength: 256 }) });

export const PasswordResetStart = Type.Object({ email: Email });
export const PasswordResetFinish = Type.Object({
  userId: Type.String({ pattern: UUID_PATTERN, description: 'the user id the reset email names' }),
  token: Type.String({ minLength: 1, maxLength: 256, description: 'the token the reset email carries' }),
  password: Password,
});

