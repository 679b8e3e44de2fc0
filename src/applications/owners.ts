import { DIRECT_NAMESPACE } from '../accounts/queries.js';
import type { AppContext } from '../context.js';
import { inTransaction } from '../db/transaction.js';
import type { Executor } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import { isUuid } from '../ids/path-ids.js';
import type { ApplicationRow } from './queries.js';

/** GET/POST/DELETE /platform/application/{id}/owner: who may manage the application (decisions §6). */

/** The owners with the user details the official SDK's model shows, in the order they were added. */
export function listOwners(db: Executor, applicationId: string) {
  return db
    .selectFrom('application_owners')
    .innerJoin('users', 'users.id', 'application_owners.user_id')
    .select(['users.id', 'users.email', 'users.display_name', 'users.orphan', 'users.namespace'])
    .where('application_owners.application_id', '=', applicationId)
    .orderBy('application_owners.created')
    .orderBy('application_owners.user_id')
    .execute();
}
export type OwnerRow = Awaited<ReturnType<typeof listOwners>>[number];

/** Takes the application's row lock (PostgreSQL), so owner changes of one application run one at a time. */
async function lockApplication(db: Executor, dialect: string, applicationId: string): Promise<void> {
  if (dialect === 'postgres') await db.selectFrom('applications').select('id').where('id', '=', applicationId).forUpdate().execute();
}

/**
 * Adds a directly registered user as an owner (owning one again changes nothing). 404 for an
 * unknown id, a pending invite or an application's own user: only direct users use the platform.
 */
export async function addOwner(ctx: AppContext, application: ApplicationRow, userId: string): Promise<void> {
  const id = userId.toLowerCase();
  await inTransaction(ctx.db, ctx.logger, async ({ db }) => {
    const user = isUuid(id) ? await db.selectFrom('users').select(['id', 'namespace', 'orphan']).where('id', '=', id).executeTakeFirst() : undefined;
    if (!user || user.namespace !== DIRECT_NAMESPACE || user.orphan === 1) throw errors.notFound('user');
    await db
      .insertInto('application_owners')
      .values({ application_id: application.id, user_id: id, created: ctx.now() })
      .onConflict((oc) => oc.columns(['application_id', 'user_id']).doNothing())
      .execute();
  });
  ctx.logger.info({ applicationId: application.id, owner: id }, 'application owner added');
}

/**
 * 409 last_application_owner when `userId` is the only owner of an application: their account may
 * not go (DELETE /account) while that application lives, for nobody could then rotate its keys,
 * delete it or release its issuer (issue 27 point 3). Runs in the deletion's transaction, with each
 * owned application's row lock taken, so a concurrent owner removal waits for it.
 */
export async function refuseLosingLastOwner(db: Executor, dialect: string, userId: string): Promise<void> {
  const owned = await db.selectFrom('application_owners').select('application_id').where('user_id', '=', userId).execute();
  for (const { application_id: applicationId } of owned) {
    await lockApplication(db, dialect, applicationId);
    const owners = await db.selectFrom('application_owners').select((eb) => eb.fn.countAll<number | string>().as('n')).where('application_id', '=', applicationId).executeTakeFirstOrThrow();
    if (Number(owners.n) === 1) throw errors.lastApplicationOwner();
  }
}

/** Removes an owner: 404 when they are not one; 409 for the last one (an application always has an owner). */
export async function removeOwner(ctx: AppContext, application: ApplicationRow, userId: string): Promise<void> {
  const id = userId.toLowerCase();
  await inTransaction(ctx.db, ctx.logger, async (uow) => {
    await lockApplication(uow.db, uow.dialect, application.id);
    const owners = await uow.db.selectFrom('application_owners').select('user_id').where('application_id', '=', application.id).execute();
    if (!owners.some((o) => o.user_id === id)) throw errors.notFound('owner');
    if (owners.length === 1) throw errors.conflict('an application keeps at least one owner: add another before removing this one');
    await uow.db.deleteFrom('application_owners').where('application_id', '=', application.id).where('user_id', '=', id).execute();
  });
  ctx.logger.info({ applicationId: application.id, owner: id }, 'application owner removed');
}
