import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';

/**
 * The id of a user, lock or site, as clients see it: a UUID version 4. The legacy JavaScript SDK
 * refuses to look up a user id whose version is not 1–5, so the public ids cannot be version 7;
 * nothing orders by them (lists order by a `created` column, docs/decisions.md).
 */
export function newPublicId(): string {
  return randomUUID();
}

/**
 * Internal ids (sessions, audit entries, keys, codes): UUID version 7, time-ordered, so new rows land at the end of indexes. The random part comes
 * from a version 4 UUID (RFC 9562 variant bits already set), which Node draws from a buffered
 * CSPRNG pool: a fresh randomBytes(16) per id cost a synchronous crypto job each time.
 */
export function newId(now = Date.now()): string {
  const random = randomUUID(); // xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx
  const time = Math.floor(now).toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${random.slice(15)}`;
}

/** An unguessable single-use code (256 bits), URL-safe. */
export function newSecretCode(): string {
  return randomBytes(32).toString('base64url');
}

/** A numeric code of `digits` digits, for people to type. */
export function newNumericCode(digits = 6): string {
  return String(randomInt(0, 10 ** digits)).padStart(digits, '0');
}

/** Secrets are stored only as their SHA-256 (they are random, so no salt or stretching is needed). */
export function sha256Hex(value: string | Buffer): string {
  return createHash('sha256').update(value).digest('hex');
}

export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
