import { Type } from '@sinclair/typebox';
import { UUID_PATTERN } from '../crypto/random.js';
import { errors } from '../errors/catalogue.js';

/**
 * Ids in paths (locks, users, sites, tiles, entries), shared by every feature's routes: their
 * params' schemas and the check that turns a path segment into an id.
 */

const UUID = new RegExp(UUID_PATTERN);

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/**
 * Lock, tile, site and user ids in paths. A malformed id answers the same 404 as an unknown or
 * inaccessible one, so a caller learns nothing from the difference (decisions §5: no leak).
 * Ids are compared in lower case: UUIDs are case-insensitive, our own are issued lower case.
 */
export function pathId(value: string, what: string): string {
  if (!isUuid(value)) throw errors.notFound(what);
  return value.toLowerCase();
}

export const LockIdParams = Type.Object({ lockId: Type.String({ description: 'lock UUID' }) });
export const UserIdParams = Type.Object({ userId: Type.String({ description: 'user UUID' }) });
