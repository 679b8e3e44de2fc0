import { findUserByEmail, type UserRow } from '../accounts/queries.js';
import { findApplicationUser } from '../applications/app-users.js';
import type { Executor } from '../db/transaction.js';

/** Read-only lookups of the directory, all confined to one namespace (the caller's application). */
export function findByEmail(db: Executor, namespace: string, email: string): Promise<UserRow | undefined> {
  return findUserByEmail(db, namespace, email);
}

/** A number may be on several accounts: a verified one wins, then the oldest. */
export function findByTelephone(db: Executor, namespace: string, telephone: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('namespace', '=', namespace)
    .where('telephone', '=', telephone)
    .orderBy('telephone_verified', 'desc')
    .orderBy('created')
    .limit(1)
    .executeTakeFirst();
}

export function findByLocalKey(db: Executor, namespace: string, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('namespace', '=', namespace).where('id', '=', id.toLowerCase()).executeTakeFirst();
}

/** The third party's own user id (token `sub`); direct users have none, so never match. */
export const findByForeignKey = findApplicationUser;
