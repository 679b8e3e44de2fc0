import { sql } from 'kysely';
import type { AppContext } from '../context.js';
import { newId } from '../crypto/random.js';
import { prepareQuery } from '../db/prepared.js';
import { inTransaction, type Executor } from '../db/transaction.js';
import { eventTypeOf } from './event-types.js';
import { deleteOutbox, enabledEndpoints, insertDeliveries, lockScope, oldestOutbox, type FanOutEndpoint } from './queries.js';

/**
 * The webhooks' outbox (issue 32 point 3): each audit entry an enabled endpoint could take leaves
 * a row here in its own transaction (so an entry committed is an event that will be delivered,
 * whatever happens to the process next), and the worker fans the rows out, oldest first, into one
 * delivery per endpoint the entry concerns, deleting them in the same transaction.
 */

// Prepared (src/db/prepared.ts): every lock and unlock runs it. The row is written only while an
// endpoint is enabled, asked in the same statement (no round trip more; issue 33 point 3: with no
// endpoint an unlock wrote a row and woke the worker for nothing, ≈ 12 statements and 3 commits).
// The casts: PostgreSQL types a bare parameter in a select list as text.
const insertOutboxWhileAnyEndpoint = prepareQuery<{ seq: number; created: number }>((db, slot) =>
  db
    .insertInto('webhook_outbox')
    .columns(['audit_seq', 'created'])
    .expression(
      db
        .selectFrom('webhook_endpoints')
        .select([sql<number>`cast(${slot.seq} as bigint)`.as('audit_seq'), sql<number>`cast(${slot.created} as double precision)`.as('created')])
        .where('enabled', '=', 1)
        .limit(sql.lit(1)),
    ));

/**
 * The bus channel told, once committed, that the outbox holds a new row: on this instance only
 * (`publishHere`), whose worker fans it out. Every instance's worker woke for every entry before,
 * each taking the fan-out's advisory lock in a transaction, most of them to find the outbox
 * emptied by the first (issue 33 point 2); the others' polls find a row left by an instance that
 * died before fanning it out.
 */
export const WEBHOOK_OUTBOX_CHANNEL = 'webhook-outbox';

/**
 * Wires the outbox to the audit (src/audit/listeners.ts); the composition root calls it once. An
 * entry no event type describes, or recorded while no endpoint is enabled, leaves no row and wakes
 * no worker: fanning it out would have delivered it nowhere.
 */
export function webhooksFollowAudit(ctx: Pick<AppContext, 'auditListeners' | 'bus'>): void {
  ctx.auditListeners.followOutbox({
    wants: (entry) => eventTypeOf({ type: entry.type, rejected: entry.rejected }) !== null,
    // SQLite; on PostgreSQL the audit's append function runs the same conditional insert (migration 0230).
    write: async (uow, entry) => (await insertOutboxWhileAnyEndpoint.affectedRows(uow.db, uow.dialect, { seq: entry.seq, created: entry.timestamp })) > 0,
    written: (hooks, entry) => hooks.onCommit(() => ctx.bus.publishHere(WEBHOOK_OUTBOX_CHANNEL, { seq: entry.seq })),
  });
}

/** The bus channel told when a delivery is due at once (a redelivery, a test event): every instance's worker looks. */
export const WEBHOOK_CHANNEL = 'webhooks';

/** Arbitrary constant: the advisory lock that makes one instance at a time fan out (PostgreSQL). */
const FAN_OUT_LOCK = 0x5748_4f4b; // "WHOK"

/** Entries fanned out per transaction. */
const FAN_OUT_BATCH = 200;

function parseList(text: string | null): string[] | null {
  return text === null ? null : (JSON.parse(text) as string[]);
}

/** Whether an endpoint takes an entry of `lockId` (on `siteId`, administered by `admins`) and `eventType`. */
export function endpointTakes(
  endpoint: FanOutEndpoint,
  event: { eventType: string; lockId: string; siteId: string | null; admins: ReadonlyArray<{ userId: string; namespace: string }> },
): boolean {
  const types = parseList(endpoint.event_types);
  if (types !== null && !types.includes(event.eventType)) return false;
  const locks = parseList(endpoint.lock_ids);
  const sites = parseList(endpoint.site_ids);
  if (locks !== null || sites !== null) {
    const named = (locks?.includes(event.lockId) ?? false) || (event.siteId !== null && (sites?.includes(event.siteId) ?? false));
    if (!named) return false;
  }
  // Scope, as it stands when fanned out: the user administers the lock, or one of the application's users does.
  if (endpoint.owner_user_id !== null) return event.admins.some((a) => a.userId === endpoint.owner_user_id);
  return event.admins.some((a) => a.namespace === endpoint.application_id);
}

async function fanOutBatch(ctx: AppContext, db: Executor, seqs: number[]): Promise<void> {
  const now = ctx.now();
  const endpoints = await enabledEndpoints(db);
  if (endpoints.length > 0) {
    const entries = await db.selectFrom('audit_entries').select(['seq', 'lock_id', 'type', 'rejected', 'timestamp']).where('seq', 'in', seqs).orderBy('seq').execute();
    const scopes = new Map<string, Awaited<ReturnType<typeof lockScope>>>();
    for (const entry of entries) {
      const eventType = eventTypeOf({ type: entry.type, rejected: entry.rejected === 1 });
      if (eventType === null) continue;
      if (!scopes.has(entry.lock_id)) scopes.set(entry.lock_id, await lockScope(db, entry.lock_id, now));
      const scope = scopes.get(entry.lock_id);
      if (!scope) continue;
      const rows = endpoints
        .filter((endpoint) => endpointTakes(endpoint, { eventType, lockId: entry.lock_id, siteId: scope.siteId, admins: scope.admins }))
        .map((endpoint) => ({
          id: newId(),
          endpoint_id: endpoint.id,
          event_type: eventType,
          audit_seq: Number(entry.seq),
          lock_id: entry.lock_id,
          payload: null,
          state: 'pending',
          next_attempt_at: now,
          window_start: now,
          delivered_at: null,
          created: now,
        }));
      await insertDeliveries(db, rows);
    }
  }
  await deleteOutbox(db, seqs);
}

/**
 * Fans out what the outbox holds, a batch per transaction, oldest first; answers how many entries
 * it took. One instance at a time (an advisory lock on PostgreSQL; SQLite has one), so the
 * deliveries of a lock are written in the order of its entries.
 */
export async function fanOut(ctx: AppContext): Promise<number> {
  let taken = 0;
  for (;;) {
    const batch = await inTransaction(ctx.db, ctx.logger, async (uow) => {
      if (uow.dialect === 'postgres') await sql`SELECT pg_advisory_xact_lock(${FAN_OUT_LOCK}::int4, 0)`.execute(uow.db);
      const seqs = await oldestOutbox(uow.db, FAN_OUT_BATCH);
      if (seqs.length > 0) await fanOutBatch(ctx, uow.db, seqs);
      return seqs.length;
    });
    taken += batch;
    if (batch < FAN_OUT_BATCH) return taken;
  }
}
