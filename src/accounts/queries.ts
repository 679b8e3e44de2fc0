import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Database } from '../db/database.js';
import { prepareQuery } from '../db/prepared.js';
import type { Executor } from '../db/transaction.js';
import type { CallerUser } from './caller.js';
import type { SessionsTable, UsersTable } from './tables.js';

export type UserRow = Selectable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;

export const DIRECT_NAMESPACE = 'direct';

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function findUserById(db: Executor, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** `forUpdate` locks the row until the transaction ends (PostgreSQL only; SQLite has no FOR UPDATE). */
export function findUserByEmail(db: Executor, namespace: string, email: string, options: { forUpdate?: boolean } = {}): Promise<UserRow | undefined> {
  const query = db.selectFrom('users').selectAll().where('namespace', '=', namespace).where('email_normalised', '=', normaliseEmail(email));
  return (options.forUpdate ? query.forUpdate() : query).executeTakeFirst();
}

export async function insertUser(db: Executor, user: Insertable<UsersTable>): Promise<void> {
  await db.insertInto('users').values(user).execute();
}

/**
 * Where a write to a user's row or sessions runs, and how it announces the change: every such
 * write goes through the functions below, which call `changed` so that cached sessions of the
 * user are dropped once the change commits (see live-sessions.ts, `accountWriter`).
 */
export interface AccountWriter {
  readonly db: Executor;
  /** Resolves once the change is announced (or, in a transaction, once that is queued for after commit). */
  changed(userId: string): Promise<void>;
}

export async function updateUser(writer: AccountWriter, id: string, changes: Updateable<UsersTable>): Promise<void> {
  await writer.db.updateTable('users').set(changes).where('id', '=', id).execute();
  await writer.changed(id);
}

/** Stores a legacy key only if the user has none yet; false when another request got there first. */
export async function setLegacyKeyIfMissing(writer: AccountWriter, id: string, key: { public_key: string; private_key_sealed: string; updated: number }): Promise<boolean> {
  const result = await writer.db.updateTable('users').set(key).where('id', '=', id).where('public_key', 'is', null).executeTakeFirst();
  const stored = Number(result.numUpdatedRows) === 1;
  if (stored) await writer.changed(id);
  return stored;
}

export async function deleteUser(writer: AccountWriter, id: string): Promise<void> {
  await writer.db.deleteFrom('users').where('id', '=', id).execute();
  await writer.changed(id);
}

export async function insertSession(db: Executor, session: Insertable<SessionsTable>): Promise<void> {
  await db.insertInto('sessions').values(session).execute();
}

export function findSession(db: Executor, id: string): Promise<SessionRow | undefined> {
  return db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The user behind a live session, with when it ends: the read of every authenticated request not held in memory (prepared). */
const liveSessionUserQuery = prepareQuery<{ sessionId: string; now: number }, LiveSessionUser>((db, slot) =>
  db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select([
      'users.id',
      'users.namespace',
      'users.email',
      'users.email_verified',
      'users.display_name',
      'users.telephone',
      'users.telephone_verified',
      'users.public_key',
      'sessions.expires_at',
    ])
    .where('sessions.id', '=', slot.sessionId)
    .where('sessions.revoked_at', 'is', null)
    .where('sessions.expires_at', '>', slot.now));

export interface LiveSessionUser extends CallerUser {
  expires_at: number;
}

/** That read: synchronous on SQLite when nothing else holds the connection, else through the driver. */
export function readLiveSessionUser(database: Database, sessionId: string, now: number): Promise<LiveSessionUser | undefined> {
  return liveSessionUserQuery.takeFirstNow(database, { sessionId, now });
}

/** Moves the session to its next refresh token, only if `expectedRefreshId` is still the current one. */
export async function rotateRefreshId(db: Executor, sessionId: string, expectedRefreshId: string, nextRefreshId: string, expiresAt: number): Promise<boolean> {
  const result = await db
    .updateTable('sessions')
    .set({ refresh_id: nextRefreshId, expires_at: expiresAt })
    .where('id', '=', sessionId)
    .where('refresh_id', '=', expectedRefreshId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function revokeSession(writer: AccountWriter, session: { sessionId: string; userId: string }, now: number): Promise<void> {
  await writer.db.updateTable('sessions').set({ revoked_at: now }).where('id', '=', session.sessionId).where('revoked_at', 'is', null).execute();
  await writer.changed(session.userId);
}

export async function revokeOtherSessions(writer: AccountWriter, userId: string, keepSessionId: string | null, now: number): Promise<void> {
  let query = writer.db.updateTable('sessions').set({ revoked_at: now }).where('user_id', '=', userId).where('revoked_at', 'is', null);
  if (keepSessionId) query = query.where('id', '!=', keepSessionId);
  await query.execute();
  await writer.changed(userId);
}

export async function insertEmailVerification(db: Executor, row: { code_hash: string; user_id: string; email: string; created: number; expires_at: number }): Promise<void> {
  await db.insertInto('email_verifications').values({ ...row, used_at: null }).execute();
}

/** Marks a code used, once: the update succeeds only for an unused, unexpired code. */
export async function consumeEmailVerification(db: Executor, codeHash: string, now: number): Promise<{ user_id: string; email: string } | undefined> {
  const row = await db
    .selectFrom('email_verifications')
    .select(['user_id', 'email'])
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (!row) return undefined;
  const result = await db.updateTable('email_verifications').set({ used_at: now }).where('code_hash', '=', codeHash).where('used_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1 ? row : undefined;
}
