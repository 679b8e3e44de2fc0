import type { Updateable } from 'kysely';
import { callerFromUser, type Caller } from '../accounts/caller.js';
import { accountWriter } from '../accounts/live-sessions.js';
import { DIRECT_NAMESPACE, findUserByEmail, insertUser, normaliseEmail, updateUser, type AccountWriter, type UserRow } from '../accounts/queries.js';
import type { UsersTable } from '../accounts/tables.js';
import type { AppContext } from '../context.js';
import { errors } from '../errors/catalogue.js';
import { newPublicId } from '../crypto/random.js';
import { isUniqueViolation } from '../db/errors.js';
import { inTransaction, type Executor } from '../db/transaction.js';
import { refuseLosingLastOwner } from './owners.js';
import type { IdentityClaims } from './token-claims.js';

export function findApplicationUser(db: Executor, applicationId: string, externalId: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('namespace', '=', applicationId).where('external_id', '=', externalId).executeTakeFirst();
}

/**
 * 401 for a token issued (`iat`, the third party's clock) no later than its subject's account was
 * deleted (DELETE /account): such a token neither reaches nor recreates an account. A token issued
 * after the deletion is a new sign-in at the application, which may create a fresh account.
 */
export async function refuseTokenOfDeletedUser(db: Executor, applicationId: string, claims: IdentityClaims): Promise<void> {
  const deleted = await db
    .selectFrom('deleted_application_users')
    .select('deleted_at')
    .where('application_id', '=', applicationId)
    .where('external_id', '=', claims.sub)
    .executeTakeFirst();
  refuseIfIssuedBy(deleted?.deleted_at ?? null, claims);
}

/** 401 when the token was issued no later than `deletedAt`, its subject's deletion (null: never deleted). */
function refuseIfIssuedBy(deletedAt: number | null, claims: IdentityClaims): void {
  if (deletedAt !== null && claims.iat <= deletedAt) throw errors.unauthenticated('authentication token was issued before its account was deleted');
}

/** A token's user as it stands (a token of an already verified identity): one read, the deletion check included. */
export async function findApplicationUserFor(db: Executor, applicationId: string, claims: IdentityClaims): Promise<UserRow | undefined> {
  const row = await db
    .selectFrom('users')
    .leftJoin('deleted_application_users as d', (join) => join.onRef('d.application_id', '=', 'users.namespace').onRef('d.external_id', '=', 'users.external_id'))
    .selectAll('users')
    .select('d.deleted_at')
    .where('users.namespace', '=', applicationId)
    .where('users.external_id', '=', claims.sub)
    .executeTakeFirst();
  if (!row) return undefined;
  const { deleted_at: deletedAt, ...user } = row;
  refuseIfIssuedBy(deletedAt, claims);
  return user;
}

/** Records that the application user `externalId` was deleted now (in the deleting transaction). */
export async function recordApplicationUserDeletion(db: Executor, applicationId: string, externalId: string, now: number): Promise<void> {
  await db
    .insertInto('deleted_application_users')
    .values({ application_id: applicationId, external_id: externalId, deleted_at: now })
    .onConflict((oc) => oc.columns(['application_id', 'external_id']).doUpdateSet({ deleted_at: now }))
    .execute();
}

/**
 * A deleted application user leaves a tombstone (recordApplicationUserDeletion), in the deletion's
 * transaction (src/accounts/events.ts); direct users and users without an external id leave none.
 * The last owner of an application may not go (409, refuseLosingLastOwner).
 */
export function applicationsFollowAccountDeletions(ctx: AppContext): void {
  ctx.accountEvents.on('deleting', async (uow, { user }) => {
    await refuseLosingLastOwner(uow.db, uow.dialect, user.id);
    if (user.namespace !== DIRECT_NAMESPACE && user.external_id !== null) await recordApplicationUserDeletion(uow.db, user.namespace, user.external_id, ctx.now());
  });
}

export function callerFor(user: UserRow, applicationId: string): Caller {
  return callerFromUser({ ...user, namespace: applicationId }, null, applicationId);
}

/**
 * The columns the token's claims set. Absent claims leave stored values alone (a token without
 * `email` says nothing about it); an email another user of the application holds is not taken.
 */
async function claimedChanges(db: Executor, applicationId: string, claims: IdentityClaims, userId: string | null): Promise<Updateable<UsersTable>> {
  const changes: Updateable<UsersTable> = {};
  if (claims.email !== null) {
    const holder = await findUserByEmail(db, applicationId, claims.email);
    if (!holder || holder.id === userId) {
      changes.email = claims.email;
      changes.email_normalised = normaliseEmail(claims.email);
      changes.email_verified = claims.emailVerified ? 1 : 0;
    }
  }
  if (claims.telephone !== null) {
    changes.telephone = claims.telephone;
    changes.telephone_verified = claims.telephoneVerified ? 1 : 0;
  }
  if (claims.name !== null) changes.display_name = claims.name;
  return changes;
}

function differs(user: UserRow, changes: Updateable<UsersTable>): boolean {
  return Object.entries(changes).some(([column, value]) => user[column as keyof UserRow] !== value);
}

/**
 * The application's user for a verified token: created on first use, kept in step with the claims
 * after. A pending invite (orphan) made to the same email is taken over, keeping its shares — but
 * only when the third party says the email is verified, so nobody claims another's invite.
 */
export async function ensureApplicationUser(ctx: AppContext, applicationId: string, claims: IdentityClaims): Promise<UserRow> {
  try {
    return await inTransaction(ctx.db, ctx.logger, async (uow) => {
      const { db } = uow;
      await refuseTokenOfDeletedUser(db, applicationId, claims);
      const writer = accountWriter(ctx, uow);
      const existing = await findApplicationUser(db, applicationId, claims.sub);
      if (existing) return syncUser(ctx, writer, existing, applicationId, claims);
      const invite = claims.email && claims.emailVerified ? await findUserByEmail(db, applicationId, claims.email) : undefined;
      if (invite && invite.orphan === 1 && invite.external_id === null) {
        await updateUser(writer, invite.id, { external_id: claims.sub, orphan: 0, updated: ctx.now() });
        return syncUser(ctx, writer, { ...invite, external_id: claims.sub, orphan: 0 }, applicationId, claims);
      }
      const id = newPublicId();
      const now = ctx.now();
      await insertUser(db, {
        id,
        namespace: applicationId,
        external_id: claims.sub,
        email: null,
        email_normalised: null,
        email_verified: 0,
        telephone: null,
        telephone_verified: 0,
        display_name: null,
        password_hash: null,
        public_key: null,
        private_key_sealed: null,
        orphan: 0,
        created: now,
        updated: now,
        ...(await claimedChanges(db, applicationId, claims, id)),
      });
      ctx.logger.info({ userId: id, applicationId }, 'application user created on first use');
      return (await findApplicationUser(db, applicationId, claims.sub))!;
    });
  } catch (err) {
    // Two first requests at once: the other one created the user; use it.
    if (!isUniqueViolation(err)) throw err;
    const created = await findApplicationUser(ctx.db.kysely, applicationId, claims.sub);
    if (!created) throw err;
    return created;
  }
}

async function syncUser(ctx: AppContext, writer: AccountWriter, user: UserRow, applicationId: string, claims: IdentityClaims): Promise<UserRow> {
  const changes = await claimedChanges(writer.db, applicationId, claims, user.id);
  if (!differs(user, changes)) return user;
  await updateUser(writer, user.id, { ...changes, updated: ctx.now() });
  return { ...user, ...changes } as UserRow;
}
