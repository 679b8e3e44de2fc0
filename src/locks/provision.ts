import { createHash, timingSafeEqual } from 'node:crypto';
import { newPublicId, newSecretCode, sha256Hex } from '../crypto/random.js';
import type { Database } from '../db/database.js';
import { prepareQuery } from '../db/prepared.js';
import type { Executor } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import { insertLock } from './queries.js';

export interface ProvisionedLock {
  id: string;
  /** One-time key the owner claims the lock with (POST /device). Shown once, stored hashed. */
  registrationKey: string;
  /** The lock's MQTT password. Shown once, stored hashed. */
  secret: string;
}

/**
 * Creates an unowned lock (`latchkey lock provision`). Both secrets are 256 random bits, so a
 * single SHA-256 is as strong as any password hash here and costs nothing per MQTT connect (a
 * slow hash would hand anyone who can reach the broker a cheap way to burn our CPU).
 * 404 when `siteId` names no site.
 */
export async function provisionLock(db: Executor, input: { name: string; siteId?: string | null }, now: number): Promise<ProvisionedLock> {
  const siteId = input.siteId ?? null;
  if (siteId !== null && !(await db.selectFrom('sites').select('id').where('id', '=', siteId).executeTakeFirst())) throw errors.notFound('site');
  const lock: ProvisionedLock = { id: newPublicId(), registrationKey: newSecretCode(), secret: newSecretCode() };
  await insertLock(db, {
    id: lock.id,
    name: input.name,
    site_id: siteId,
    registration_key_hash: sha256Hex(lock.registrationKey),
    secret_hash: sha256Hex(lock.secret),
    owner_user_id: null,
    claimed_at: null,
    default_name: null,
    unlock_between: null,
    locked: null,
    door_open: null,
    last_operation: null,
    device_kind: null,
    device_capabilities: null,
    battery: null,
    jammed: null,
    tamper: null,
    created: now,
    updated: now,
  });
  return lock;
}

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest();
/** Compared against when the lock is unknown, so the answer takes the same time either way. */
const NO_LOCK_HASH = Buffer.alloc(32);

// Prepared, read outside a transaction (synchronously on SQLite): every lock's every login, a fleet's after a restart.
const secretHashQuery = prepareQuery<{ lockId: string }, { secret_hash: string }>((db, slot) => db.selectFrom('locks').select('secret_hash').where('id', '=', slot.lockId));

/**
 * True when `secret` is the device secret of lock `lockId`: the MQTT broker's check on CONNECT.
 * Constant-time in the secret; an unknown lock costs the same comparison. `secret` null: the
 * lock proved who it is with its device certificate; true while the lock is known and in service
 * (a decommissioned lock's certificate no longer counts, src/locks/decommission.ts).
 */
export async function authenticateLockSecret(ctx: { db: Database }, lockId: string, secret: string | null): Promise<boolean> {
  if (lockId.length > 64 || (secret !== null && secret.length > 1024)) return false;
  if (secret === null) {
    const known = await ctx.db.kysely.selectFrom('locks').select('decommissioned_at').where('id', '=', lockId.toLowerCase()).executeTakeFirst();
    return known !== undefined && known.decommissioned_at === null;
  }
  const row = await secretHashQuery.takeFirstNow(ctx.db, { lockId: lockId.toLowerCase() });
  const stored = row ? Buffer.from(row.secret_hash, 'hex') : NO_LOCK_HASH;
  const matches = stored.length === 32 && timingSafeEqual(stored, sha256(secret));
  return row !== undefined && matches;
}
