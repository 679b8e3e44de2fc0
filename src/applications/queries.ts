import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../db/transaction.js';
import type { ApplicationsTable } from './tables.js';

export type ApplicationRow = Selectable<ApplicationsTable>;

export async function insertApplication(db: Executor, row: Insertable<ApplicationsTable>): Promise<void> {
  await db.insertInto('applications').values(row).execute();
}

export async function updateApplicationRow(db: Executor, id: string, changes: Updateable<ApplicationsTable>): Promise<void> {
  await db.updateTable('applications').set(changes).where('id', '=', id).execute();
}

export async function deleteApplicationRow(db: Executor, id: string): Promise<boolean> {
  const result = await db.deleteFrom('applications').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export function findApplication(db: Executor, id: string): Promise<ApplicationRow | undefined> {
  return db.selectFrom('applications').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The application only if `userId` owns it: the one check behind every /platform/application/{id} route. */
export function findOwnedApplication(db: Executor, id: string, userId: string): Promise<ApplicationRow | undefined> {
  return db
    .selectFrom('applications')
    .innerJoin('application_owners', 'application_owners.application_id', 'applications.id')
    .selectAll('applications')
    .where('applications.id', '=', id)
    .where('application_owners.user_id', '=', userId)
    .executeTakeFirst();
}

export function listOwnedApplications(db: Executor, userId: string): Promise<ApplicationRow[]> {
  return db
    .selectFrom('applications')
    .innerJoin('application_owners', 'application_owners.application_id', 'applications.id')
    .selectAll('applications')
    .where('application_owners.user_id', '=', userId)
    .orderBy('applications.created')
    .execute();
}

export async function insertOwner(db: Executor, applicationId: string, userId: string, now: number): Promise<void> {
  await db.insertInto('application_owners').values({ application_id: applicationId, user_id: userId, created: now }).execute();
}

export async function insertAuthKey(db: Executor, applicationId: string, kid: string, publicJwk: string, now: number): Promise<void> {
  await db.insertInto('application_auth_keys').values({ application_id: applicationId, kid, public_jwk: publicJwk, created: now }).execute();
}

export async function deleteAuthKey(db: Executor, applicationId: string, kid: string): Promise<boolean> {
  const result = await db.deleteFrom('application_auth_keys').where('application_id', '=', applicationId).where('kid', '=', kid).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export async function insertIssuer(db: Executor, applicationId: string, url: string, now: number): Promise<void> {
  await db.insertInto('application_issuers').values({ application_id: applicationId, url, created: now }).execute();
}

export async function deleteIssuer(db: Executor, applicationId: string, url: string): Promise<boolean> {
  const result = await db.deleteFrom('application_issuers').where('application_id', '=', applicationId).where('url', '=', url).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export async function insertCorsOrigin(db: Executor, applicationId: string, origin: string, url: string, now: number): Promise<void> {
  await db.insertInto('application_cors_origins').values({ application_id: applicationId, origin, url, created: now }).execute();
}

export async function deleteCorsOrigin(db: Executor, applicationId: string, origin: string): Promise<boolean> {
  const result = await db.deleteFrom('application_cors_origins').where('application_id', '=', applicationId).where('origin', '=', origin).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** The parts of the record that live in other tables, for a batch of applications. */
export async function findApplicationParts(db: Executor, ids: string[]) {
  if (ids.length === 0) return { owners: [], keys: [], issuers: [], cors: [] };
  const [owners, keys, issuers, cors] = await Promise.all([
    db.selectFrom('application_owners').select(['application_id', 'user_id']).where('application_id', 'in', ids).orderBy('created').execute(),
    db.selectFrom('application_auth_keys').select(['application_id', 'kid', 'public_jwk']).where('application_id', 'in', ids).orderBy('created').execute(),
    db.selectFrom('application_issuers').select(['application_id', 'url']).where('application_id', 'in', ids).orderBy('created').execute(),
    db.selectFrom('application_cors_origins').select(['application_id', 'url']).where('application_id', 'in', ids).orderBy('created').execute(),
  ]);
  return { owners, keys, issuers, cors };
}
export type ApplicationParts = Awaited<ReturnType<typeof findApplicationParts>>;

/** The application and public keys behind a token issuer, for verifying its tokens. */
export async function findIssuerKeys(db: Executor, issuer: string): Promise<{ applicationId: string; keys: Array<{ kid: string; public_jwk: string }> } | null> {
  const found = await db.selectFrom('application_issuers').select('application_id').where('url', '=', issuer).executeTakeFirst();
  if (!found) return null;
  const keys = await db.selectFrom('application_auth_keys').select(['kid', 'public_jwk']).where('application_id', '=', found.application_id).execute();
  return { applicationId: found.application_id, keys };
}

export async function listCorsOrigins(db: Executor): Promise<string[]> {
  const rows = await db.selectFrom('application_cors_origins').select('origin').distinct().execute();
  return rows.map((row) => row.origin);
}
