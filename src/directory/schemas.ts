import { Type } from '@sinclair/typebox';
import { UUID_PATTERN } from '../crypto/random.js';

/** Exactly one key (checked by the service, so that zero and two answer the same clear 400). */
export const DirectoryQuery = Type.Object(
  {
    email: Type.Optional(Type.String({ minLength: 3, maxLength: 254 })),
    telephone: Type.Optional(Type.String({ pattern: '^\\+[1-9][0-9]{1,14}$', description: 'E.164' })),
    localKey: Type.Optional(Type.String({ pattern: UUID_PATTERN, description: "the service's user id" })),
    foreignKey: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: "the third party's user id (token sub)" })),
    identity: Type.Optional(Type.String({ minLength: 1, maxLength: 16_384, description: "compact JWE (RSA-OAEP-256, A256GCM) under the application's encryptionKey, wrapping its auth token" })),
  },
  { additionalProperties: false },
);

export const DirectoryResult = Type.Object({
  id: Type.String(),
  publicKey: Type.String({ description: "the user's legacy RSA public key, Base64 DER SubjectPublicKeyInfo" }),
});
