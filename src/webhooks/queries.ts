import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { anActiveAdmin } from '../access/active-admin.js';
import type { Executor } from '../db/transaction.js';
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from './tables.js';

export type EndpointRow = Selectable<WebhookEndpointsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;

// ——— Endpoints ————————————————————————————————————————————————————————————————————————————————

export async function insertEndpoint(db: Executor, row: Insertable<WebhookEndpointsTable>): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

export function findEndpoint(db: Executor, id: string): Promise<EndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A user's own endpoints and those of the applications they own, oldest first. */
export function listManagedEndpoints(db: Executor, userId: string): Promise<EndpointRow[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb('owner_user_id', '=', userId),
        eb('application_id', 'in', eb.selectFrom('application_owners').select('application_id').where('user_id', '=', userId)),
      ]),
    )
    .orderBy('created')
    .orderBy('id')
    .execute();
}

export async function updateEndpoint(db: Executor, id: string, changes: Updateable<WebhookEndpointsTable>): Promise<void> {
  await db.updateTable('webhook_endpoints').set(changes).where('id', '=', id).execute();
}

export async function deleteEndpoint(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
}

/** What fanning out needs of every enabled endpoint. */
export function enabledEndpoints(db: Executor) {
  return db.selectFrom('webhook_endpoints').select(['id', 'owner_user_id', 'application_id', 'event_types', 'lock_ids', 'site_ids']).where('enabled', '=', 1).execute();
}
export type FanOutEndpoint = Awaited<ReturnType<typeof enabledEndpoints>>[number];

/** The lock's site and its active ADMINs (the SQL of src/access/active-admin.ts) with their namespace ('direct' or an application id). */
export async function lockScope(db: Executor, lockId: string, now: number): Promise<{ siteId: string | null; admins: Array<{ userId: string; namespace: string }> } | null> {
  const lock = await db.selectFrom('locks').select('site_id').where('id', '=', lockId).executeTakeFirst();
  if (!lock) return null;
  const admins = await db
    .selectFrom('lock_members as admin')
    .innerJoin('users as u', 'u.id', 'admin.user_id')
    .select(['admin.user_id as userId', 'u.namespace as namespace'])
    .where('admin.lock_id', '=', lockId)
    .where(anActiveAdmin(now))
    .execute();
  return { siteId: lock.site_id, admins };
}

/** Of `lockIds`, those that `userId` administers now. */
export async function administeredLocks(db: Executor, userId: string, lockIds: readonly string[], now: number): Promise<Set<string>> {
  if (lockIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('lock_members as admin')
    .select('admin.lock_id')
    .where('admin.user_id', '=', userId)
    .where('admin.lock_id', 'in', [...lockIds])
    .where(anActiveAdmin(now))
    .execute();
  return new Set(rows.map((r) => r.lock_id));
}

/** Of `lockIds`, those an application's user administers now. */
export async function applicationLocks(db: Executor, applicationId: string, lockIds: readonly string[], now: number): Promise<Set<string>> {
  if (lockIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('lock_members as admin')
    .innerJoin('users as u', 'u.id', 'admin.user_id')
    .select('admin.lock_id')
    .where('u.namespace', '=', applicationId)
    .where('admin.lock_id', 'in', [...lockIds])
    .where(anActiveAdmin(now))
    .execute();
  return new Set(rows.map((r) => r.lock_id));
}

/** The sites of `siteIds` that exist, with their owner and their locks. */
export async function sitesWithLocks(db: Executor, siteIds: readonly string[]): Promise<Array<{ id: string; ownerUserId: string | null; lockIds: string[] }>> {
  if (siteIds.length === 0) return [];
  const sites = await db.selectFrom('sites').select(['id', 'owner_user_id']).where('id', 'in', [...siteIds]).execute();
  const locks = await db.selectFrom('locks').select(['id', 'site_id']).where('site_id', 'in', [...siteIds]).execute();
  return sites.map((s) => ({ id: s.id, ownerUserId: s.owner_user_id, lockIds: locks.filter((l) => l.site_id === s.id).map((l) => l.id) }));
}

/** The email addresses of whom an endpoint's news goes to: its user, or its application's owners. */
export async function endpointOwnerEmails(db: Executor, endpoint: Pick<EndpointRow, 'owner_user_id' | 'application_id'>): Promise<string[]> {
  const rows =
    endpoint.owner_user_id !== null
      ? await db.selectFrom('users').select('email').where('id', '=', endpoint.owner_user_id).execute()
      : await db.selectFrom('application_owners as o').innerJoin('users as u', 'u.id', 'o.user_id').select('u.email').where('o.application_id', '=', endpoint.application_id!).execute();
  return rows.map((r) => r.email).filter((email): email is string => typeof email === 'string' && email.length > 0);
}

// ——— Outbox ———————————————————————————————————————————————————————————————————————————————————

/** The oldest entries waiting to be fanned out. */
export function oldestOutbox(db: Executor, limit: number): Promise<number[]> {
  return db.selectFrom('webhook_outbox').select('audit_seq').orderBy('audit_seq').limit(limit).execute().then((rows) => rows.map((r) => Number(r.audit_seq)));
}

export async function deleteOutbox(db: Executor, seqs: readonly number[]): Promise<void> {
  if (seqs.length > 0) await db.deleteFrom('webhook_outbox').where('audit_seq', 'in', [...seqs]).execute();
}

// ——— Deliveries ———————————————————————————————————————————————————————————————————————————————

export async function insertDeliveries(db: Executor, rows: ReadonlyArray<Insertable<WebhookDeliveriesTable>>): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('webhook_deliveries').values([...rows]).onConflict((oc) => oc.columns(['endpoint_id', 'audit_seq']).doNothing()).execute();
}

/**
 * The deliveries due now on enabled endpoints whose lock has no earlier delivery pending on the
 * same endpoint (in order per lock per endpoint), oldest due first; `exclude` leaves out those this
 * instance is attempting already (SQLite). On PostgreSQL pass `lock`: the rows come locked, and
 * rows locked by another instance are skipped (each attempt is made by one instance at a time).
 */
export function dueDeliveries(db: Executor, now: number, limit: number, options: { lock?: boolean; exclude?: readonly string[] } = {}) {
  return db
    .selectFrom('webhook_deliveries as d')
    .selectAll('d')
    .where('d.state', '=', 'pending')
    .where('d.next_attempt_at', '<=', now)
    .where('d.endpoint_id', 'in', (eb) => eb.selectFrom('webhook_endpoints').select('id').where('enabled', '=', 1))
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_deliveries as p')
            .select(sql<number>`1`.as('one'))
            .whereRef('p.endpoint_id', '=', 'd.endpoint_id')
            .whereRef('p.lock_id', '=', 'd.lock_id')
            .where('p.state', '=', 'pending')
            .whereRef('p.audit_seq', '<', 'd.audit_seq'),
        ),
      ),
    )
    .$if(options.exclude !== undefined && options.exclude.length > 0, (q) => q.where('d.id', 'not in', [...options.exclude!]))
    .orderBy('d.next_attempt_at')
    .orderBy('d.audit_seq')
    .limit(limit)
    .$if(options.lock === true, (q) => q.forUpdate().skipLocked())
    .execute();
}

/**
 * When the next pending delivery of an enabled endpoint falls due after `now` (Unix seconds), or
 * null. Those due already but not claimable wait for an attempt under way, whose end wakes the worker.
 */
export async function nextDue(db: Executor, now: number): Promise<number | null> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('at'))
    .where('state', '=', 'pending')
    .where('next_attempt_at', '>', now)
    .where('endpoint_id', 'in', (eb) => eb.selectFrom('webhook_endpoints').select('id').where('enabled', '=', 1))
    .executeTakeFirst();
  return row?.at == null ? null : Number(row.at);
}

export async function updateDelivery(db: Executor, id: string, changes: Updateable<WebhookDeliveriesTable>): Promise<void> {
  await db.updateTable('webhook_deliveries').set(changes).where('id', '=', id).execute();
}

export async function insertAttempt(db: Executor, row: Insertable<WebhookAttemptsTable>): Promise<void> {
  await db.insertInto('webhook_attempts').values(row).execute();
}

export function findDelivery(db: Executor, endpointId: string, id: string): Promise<DeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).where('id', '=', id).executeTakeFirst();
}

/** A page of an endpoint's deliveries, newest first; `before`: only those created before this delivery. */
export async function deliveryPage(db: Executor, endpointId: string, limit: number, before?: DeliveryRow): Promise<DeliveryRow[]> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .$if(before !== undefined, (q) => q.where((eb) => eb.or([eb('created', '<', before!.created), eb.and([eb('created', '=', before!.created), eb('id', '<', before!.id)])])))
    .orderBy('created', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** The attempts of these deliveries, newest first. */
export function attemptsOf(db: Executor, deliveryIds: readonly string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', [...deliveryIds]).orderBy('at', 'desc').orderBy('id', 'desc').execute();
}
