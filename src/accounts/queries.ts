import type { CompiledQuery, Insertable, Selectable, Updateable } from 'kysely';
import type { Database } from '../db/database.js';
import type { Executor } from '../db/transaction.js';
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

export async function updateUser(db: Executor, id: string, changes: Updateable<UsersTable>): Promise<void> {
  await db.updateTable('users').set(changes).where('id', '=', id).execute();
}

/** Stores a legacy key only if the user has none yet; false when another request got there first. */
export async function setLegacyKeyIfMissing(db: Executor, id: string, key: { public_key: string; private_key_sealed: string; updated: number }): Promise<boolean> {
  const result = await db.updateTable('users').set(key).where('id', '=', id).where('public_key', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteUser(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('users').where('id', '=', id).execute();
}

export async function insertSession(db: Executor, session: Insertable<SessionsTable>): Promise<void> {
  await db.insertInto('sessions').values(session).execute();
}

export function findSession(db: Executor, id: string): Promise<SessionRow | undefined> {
  return db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The user behind a live session: the one query every authenticated request makes. */
function liveSessionUserQuery(db: Executor, sessionId: string, now: number) {
  return db
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
    ])
    .where('sessions.id', '=', sessionId)
    .where('sessions.revoked_at', 'is', null)
    .where('sessions.expires_at', '>', now);
}

type LiveSessionUser = NonNullable<Awaited<ReturnType<ReturnType<typeof liveSessionUserQuery>['executeTakeFirst']>>>;
const compiledLiveSessionUser = new WeakMap<Executor, CompiledQuery<LiveSessionUser>>();

/**
 * The user behind a live session: the one query every authenticated request makes, so it is
 * compiled once per database and only its parameters change (session id, now).
 */
export async function findLiveSessionUser(db: Executor, sessionId: string, now: number): Promise<LiveSessionUser | undefined> {
  let compiled = compiledLiveSessionUser.get(db);
  if (!compiled) {
    compiled = liveSessionUserQuery(db, '', 0).compile();
    compiledLiveSessionUser.set(db, compiled);
  }
  const result = await db.executeQuery<LiveSessionUser>({ ...compiled, parameters: [sessionId, now] });
  return result.rows[0];
}

/** The same read for the authentication hook: synchronous on SQLite, where that is possible. */
export async function readLiveSessionUser(database: Database, sessionId: string, now: number): Promise<LiveSessionUser | undefined> {
  if (!database.readRowNow) return findLiveSessionUser(database.kysely, sessionId, now);
  let compiled = compiledLiveSessionUser.get(database.kysely);
  if (!compiled) {
    compiled = liveSessionUserQuery(database.kysely, '', 0).compile();
    compiledLiveSessionUser.set(database.kysely, compiled);
  }
  return database.readRowNow<LiveSessionUser>(compiled.sql, [sessionId, now]);
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

export async function revokeSession(db: Executor, sessionId: string, now: number): Promise<void> {
  await db.updateTable('sessions').set({ revoked_at: now }).where('id', '=', sessionId).where('revoked_at', 'is', null).execute();
}

export async function revokeOtherSessions(db: Executor, userId: string, keepSessionId: string | null, now: number): Promise<void> {
  let query = db.updateTable('sessions').set({ revoked_at: now }).where('user_id', '=', userId).where('revoked_at', 'is', null);
  if (keepSessionId) query = query.where('id', '!=', keepSessionId);
  await query.execute();
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
