import type { TimeRequirement, UnlockBetweenWindow } from '../access/types.js';
import type { Database } from '../db/database.js';
import { prepareQuery } from '../db/prepared.js';
import type { Executor, UnitOfWork } from '../db/transaction.js';
import { readSchedule, readUnlockBetween } from './json.js';

/** What a lock needs to decide alone (docs/device-protocol.md, `locks/{id}/config`). */
export interface LockConfigPayload {
  version: number;
  unlockDuration: number;
  unlockBetween: Required<UnlockBetweenWindow> | null;
  /** `schedule`: the user's own weekly hours, only when their share has some (shared decisions §8). */
  users: Array<{ userId: string; publicKey: string | null; role: 'ADMIN' | 'USER'; start: number | null; end: number | null; schedule?: TimeRequirement[] }>;
  /** Device protocol 1.4: the lockdown the lock is or was last under, as signed, with the lifts signed so far (src/operations/lockdown.ts). */
  lockdown?: { token: string; lifts: string[] };
}

/**
 * The lock's current configuration, for the lock link to publish (retained) after a
 * `lock-config` announcement. `publicKey` is the member's legacy RSA key (RS256 tokens), null
 * for a member who signs only with certificates. Undefined when the lock does not exist.
 */
export async function lockConfig(db: Executor, lockId: string): Promise<LockConfigPayload | undefined> {
  return (await lockConfigs(db, [lockId])).get(lockId);
}

/** The configs of `lockIds` (those that exist), in two queries: for republishing every lock's. */
export async function lockConfigs(db: Executor, lockIds: string[]): Promise<Map<string, LockConfigPayload>> {
  const configs = new Map<string, LockConfigPayload>();
  if (lockIds.length === 0) return configs;
  const locks = await db.selectFrom('locks').select(['id', 'config_version', 'unlock_time', 'unlock_between']).where('id', 'in', lockIds).execute();
  for (const lock of locks) {
    configs.set(lock.id, {
      version: lock.config_version,
      unlockDuration: lock.unlock_time,
      unlockBetween: readUnlockBetween(lock.unlock_between) as Required<UnlockBetweenWindow> | null,
      users: [],
    });
  }
  if (configs.size === 0) return configs;
  const members = await db
    .selectFrom('lock_members')
    .innerJoin('users', 'users.id', 'lock_members.user_id')
    .select(['lock_members.lock_id', 'lock_members.user_id', 'users.public_key', 'lock_members.role', 'lock_members.starts_at', 'lock_members.ends_at', 'lock_members.schedule'])
    .where('lock_members.lock_id', 'in', lockIds)
    .orderBy('lock_members.lock_id')
    .orderBy('lock_members.user_id')
    .execute();
  for (const m of members) {
    const schedule = readSchedule(m.schedule);
    configs.get(m.lock_id)?.users.push({ userId: m.user_id, publicKey: m.public_key, role: m.role, start: m.starts_at, end: m.ends_at, ...(schedule === null ? {} : { schedule }) });
  }
  for (const [lockId, lockdown] of await configLockdowns(db, [...configs.keys()])) configs.get(lockId)!.lockdown = lockdown;
  return configs;
}

// Prepared: read for every lock coming online (a fleet of them after a restart, src/lock-link/reconcile.ts).
const configVersionQuery = prepareQuery<{ lockId: string }, { config_version: number }>((db, slot) =>
  db.selectFrom('locks').select('config_version').where('id', '=', slot.lockId));

/** The lock's config version as committed, outside any transaction; undefined for an unknown lock. */
export async function committedConfigVersion(database: Database, lockId: string): Promise<number | undefined> {
  return (await configVersionQuery.takeFirstNow(database, { lockId }))?.config_version;
}

/** The config version the unit of work's transaction sees for `lockId`; undefined for an unknown lock. */
export async function currentConfigVersion(uow: Pick<UnitOfWork, 'db' | 'dialect'>, lockId: string): Promise<number | undefined> {
  return (await configVersionQuery.takeFirst(uow.db, uow.dialect, { lockId }))?.config_version;
}

/** What each lock's config carries (device protocol 1.4): its current or last lockdown's token and the lifts that name it. */
export async function configLockdowns(db: Executor, lockIds: readonly string[]): Promise<Map<string, { token: string; lifts: string[] }>> {
  const out = new Map<string, { token: string; lifts: string[] }>();
  if (lockIds.length === 0) return out;
  const rows = await db
    .selectFrom('lockdown_locks as ll')
    .innerJoin('lockdowns as l', 'l.id', 'll.lockdown_id')
    .leftJoin('lockdown_lifts as f', 'f.lockdown_id', 'll.lockdown_id')
    .select(['ll.lock_id', 'l.token', 'f.token as lift', 'f.locks as liftLocks'])
    .where('ll.lock_id', 'in', [...lockIds])
    .orderBy('f.created')
    .execute();
  for (const row of rows) {
    const entry = out.get(row.lock_id) ?? { token: row.token, lifts: [] };
    out.set(row.lock_id, entry);
    if (row.lift !== null && row.liftLocks !== null && (JSON.parse(row.liftLocks) as string[]).includes(row.lock_id)) entry.lifts.push(row.lift);
  }
  return out;
}
