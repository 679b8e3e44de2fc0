import { Type } from '@sinclair/typebox';
import { UUID_PATTERN } from '../crypto/random.js';

/** Most values one v2 (batch) query may carry, over all its keys. */
export const MAX_BATCH_KEYS = 25;

const Email = Type.String({ minLength: 3, maxLength: 254 });
const Telephone = Type.String({ pattern: '^\\+[1-9][0-9]{1,14}$', description: 'E.164' });
const LocalKey = Type.String({ pattern: UUID_PATTERN, description: "the service's user id" });
const ForeignKey = Type.String({ minLength: 1, maxLength: 1024, description: "the third party's user id (token sub)" });
const Identity = Type.String({ minLength: 1, maxLength: 16_384, description: "compact JWE (RSA-OAEP-256, A256GCM) under the application's encryptionKey, wrapping its auth token" });

const oneOrMany = <T extends ReturnType<typeof Type.String>>(value: T) =>
  Type.Optional(Type.Union([value, Type.Array(value, { maxItems: MAX_BATCH_KEYS })], { description: `${value.description ?? 'a value'}; v2: an array (at most ${MAX_BATCH_KEYS} values over all keys)` }));

/**
 * v1: exactly one key, a string (checked by the service, so that zero and two answer the same
 * clear 400). v2 (Accept …api-v2+json, the SDK's batch lookup): arrays, up to 25 values in all.
 */
export const DirectoryQuery = Type.Object({
  email: oneOrMany(Email),
  telephone: oneOrMany(Telephone),
  localKey: oneOrMany(LocalKey),
  foreignKey: oneOrMany(ForeignKey),
  identity: Type.Optional(Identity),
});

export const DirectoryResult = Type.Object({
  id: Type.String(),
  publicKey: Type.String({ description: "the user's legacy RSA public key, Base64 DER SubjectPublicKeyInfo" }),
});

/** One user found by a v2 query (the SDK's BasicBatchUserPublicKeyResponse). */
export const BatchDirectoryResult = Type.Object({
  id: Type.String(),
  email: Type.Optional(Type.String()),
  foreignKey: Type.Optional(Type.String({ description: "the third party's user id, for an application's user" })),
  phone: Type.Optional(Type.String({ description: 'E.164' })),
  publicKey: Type.String({ description: "the user's legacy RSA public key, Base64 DER SubjectPublicKeyInfo" }),
});

export const DirectoryAnswer = Type.Union([DirectoryResult, Type.Array(BatchDirectoryResult, { description: 'v2: the users found, in the order asked' })]);
