import type { Executor } from '../db/transaction.js';

/** GET /platform/application/{id}/user: the application's users, in id order, a page at a time (keyset). */

export const DEFAULT_USER_PAGE = 100;
export const MAX_USER_PAGE = 1000;

/** Up to `pageSize` users of the application after `after` (a user id), by id: one range read of users_namespace_id. */
export function listApplicationUsers(db: Executor, applicationId: string, pageSize: number, after: string | undefined) {
  return db
    .selectFrom('users')
    .select(['id', 'external_id', 'display_name', 'email', 'email_verified', 'telephone', 'telephone_verified', 'updated'])
    .where('namespace', '=', applicationId)
    .$if(after !== undefined, (q) => q.where('id', '>', after!.toLowerCase()))
    .orderBy('id')
    .limit(pageSize)
    .execute();
}
export type ApplicationUserRow = Awaited<ReturnType<typeof listApplicationUsers>>[number];
