import type { Caller } from '../accounts/caller.js';
import type { AppContext } from '../context.js';
import { newId, newPublicId } from '../crypto/random.js';
import { newWebhookSecret } from '../crypto/webhook-signing.js';
import { inTransaction } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import { isUuid, pathId } from '../ids/path-ids.js';
import { WEBHOOK_CHANNEL } from './outbox.js';
import { testEventBody } from './payload.js';
import { requireManagedEndpoint, requireOwnedApplicationFor } from './policy.js';
import { ATTEMPTS_SHOWN } from './presenters.js';
import {
  administeredLocks, applicationLocks, attemptsOf, deleteEndpoint, deliveryPage, findDelivery, findEndpoint, insertDeliveries, insertEndpoint, listManagedEndpoints,
  sitesWithLocks, updateDelivery, updateEndpoint, type AttemptRow, type DeliveryRow, type EndpointRow,
} from './queries.js';
import type { CreateWebhookBody, DeliveriesQuery, UpdateWebhookBody } from './schemas.js';
import { sealSecret } from './secrets.js';
import { urlProblem } from './target.js';

/** Tells every instance's worker that a delivery of `endpointId` is due now (else it finds it within WEBHOOK_POLL_MS). */
function announceDue(ctx: AppContext, endpointId: string): void {
  ctx.bus.publish(WEBHOOK_CHANNEL, { endpointId }).catch((err: unknown) => ctx.logger.warn({ err }, 'webhook wake-up not announced'));
}

/** Endpoints one user, or one application, may have. */
export const MAX_ENDPOINTS = 20;

/** Whose locks an endpoint hears about. */
type Scope = { kind: 'user'; userId: string } | { kind: 'application'; applicationId: string };

const scopeOf = (row: Pick<EndpointRow, 'owner_user_id' | 'application_id'>): Scope =>
  row.owner_user_id !== null ? { kind: 'user', userId: row.owner_user_id } : { kind: 'application', applicationId: row.application_id! };

function checkUrl(ctx: AppContext, url: string): void {
  const problem = urlProblem(url, ctx.config.webhooks.allowPrivateAddresses);
  if (problem) throw errors.validation(problem);
}

/**
 * The lock and site filters, checked against the scope: every lock named must be one the user (or
 * one of the application's users) administers, every site one they own or that holds such a lock;
 * anything else is a 404 naming nothing more.
 */
async function checkFilter(ctx: AppContext, scope: Scope, lockIds: readonly string[] | null | undefined, siteIds: readonly string[] | null | undefined): Promise<void> {
  const db = ctx.db.kysely;
  const now = ctx.now();
  const inScope = (ids: readonly string[]) => (scope.kind === 'user' ? administeredLocks(db, scope.userId, ids, now) : applicationLocks(db, scope.applicationId, ids, now));
  if (lockIds) {
    if (!lockIds.every(isUuid)) throw errors.notFound('lock');
    const held = await inScope(lockIds);
    if (!lockIds.every((id) => held.has(id))) throw errors.notFound('lock');
  }
  if (siteIds) {
    if (!siteIds.every(isUuid)) throw errors.notFound('site');
    const sites = await sitesWithLocks(db, siteIds);
    const held = await inScope(sites.flatMap((s) => s.lockIds));
    const visible = (site: (typeof sites)[number]) => (scope.kind === 'user' && site.ownerUserId === scope.userId) || site.lockIds.some((id) => held.has(id));
    if (sites.length !== siteIds.length || !sites.every(visible)) throw errors.notFound('site');
  }
}

const lowerAll = (ids: readonly string[] | null | undefined) => (ids == null ? ids : ids.map((id) => id.toLowerCase()));
const jsonOrNull = (value: readonly unknown[] | null | undefined) => (value == null ? null : JSON.stringify(value));

export async function createEndpoint(ctx: AppContext, caller: Caller, body: CreateWebhookBody): Promise<{ endpoint: EndpointRow; secret: string }> {
  checkUrl(ctx, body.url);
  const scope: Scope = body.applicationId === undefined ? { kind: 'user', userId: caller.userId } : { kind: 'application', applicationId: await requireOwnedApplicationFor(ctx, caller, body.applicationId) };
  const lockIds = lowerAll(body.lockIds);
  const siteIds = lowerAll(body.siteIds);
  await checkFilter(ctx, scope, lockIds, siteIds);
  const id = newPublicId();
  const secret = newWebhookSecret();
  const now = ctx.now();
  await inTransaction(ctx.db, ctx.logger, async ({ db }) => {
    const owned = await db
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .$if(scope.kind === 'user', (q) => q.where('owner_user_id', '=', caller.userId))
      .$if(scope.kind === 'application', (q) => q.where('application_id', '=', (scope as { applicationId: string }).applicationId))
      .executeTakeFirstOrThrow();
    if (Number(owned.n) >= MAX_ENDPOINTS) throw errors.conflict(`at most ${MAX_ENDPOINTS} webhook endpoints each`);
    await insertEndpoint(db, {
      id,
      owner_user_id: scope.kind === 'user' ? scope.userId : null,
      application_id: scope.kind === 'application' ? scope.applicationId : null,
      url: body.url,
      description: body.description ?? null,
      event_types: jsonOrNull(body.eventTypes),
      lock_ids: jsonOrNull(lockIds),
      site_ids: jsonOrNull(siteIds),
      enabled: body.enabled === false ? 0 : 1,
      disabled_reason: null,
      secret_sealed: sealSecret(ctx.box, id, secret),
      previous_secret_sealed: null,
      previous_secret_until: null,
      failing_since: null,
      created: now,
      updated: now,
    });
  });
  ctx.logger.info({ webhookId: id }, 'webhook endpoint created');
  return { endpoint: (await findEndpoint(ctx.db.kysely, id))!, secret };
}

export function listEndpoints(ctx: AppContext, caller: Caller): Promise<EndpointRow[]> {
  return listManagedEndpoints(ctx.db.kysely, caller.userId);
}

export function readEndpoint(ctx: AppContext, caller: Caller, id: string): Promise<EndpointRow> {
  return requireManagedEndpoint(ctx, caller, id);
}

export async function changeEndpoint(ctx: AppContext, caller: Caller, id: string, body: UpdateWebhookBody): Promise<EndpointRow> {
  const endpoint = await requireManagedEndpoint(ctx, caller, id);
  if (body.url !== undefined) checkUrl(ctx, body.url);
  const lockIds = lowerAll(body.lockIds);
  const siteIds = lowerAll(body.siteIds);
  await checkFilter(ctx, scopeOf(endpoint), lockIds, siteIds);
  const enabling = body.enabled === true && endpoint.enabled === 0;
  await updateEndpoint(ctx.db.kysely, endpoint.id, {
    ...(body.url !== undefined ? { url: body.url } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.eventTypes !== undefined ? { event_types: jsonOrNull(body.eventTypes) } : {}),
    ...(lockIds !== undefined ? { lock_ids: jsonOrNull(lockIds) } : {}),
    ...(siteIds !== undefined ? { site_ids: jsonOrNull(siteIds) } : {}),
    ...(body.enabled !== undefined ? { enabled: body.enabled ? 1 : 0 } : {}),
    ...(body.enabled !== undefined ? { disabled_reason: null } : {}),
    ...(enabling ? { failure_streak: 0, failing_since: null } : {}),
    updated: ctx.now(),
  });
  if (enabling) announceDue(ctx, endpoint.id);
  return (await findEndpoint(ctx.db.kysely, endpoint.id))!;
}

/** A new secret; the old one keeps signing beside it for WEBHOOK_SECRET_OVERLAP_S. */
export async function rotateSecret(ctx: AppContext, caller: Caller, id: string): Promise<{ secret: string; previousSecretValidUntil: number }> {
  const endpoint = await requireManagedEndpoint(ctx, caller, id);
  const secret = newWebhookSecret();
  const now = ctx.now();
  const until = now + ctx.config.webhooks.secretOverlapSeconds;
  await updateEndpoint(ctx.db.kysely, endpoint.id, {
    secret_sealed: sealSecret(ctx.box, endpoint.id, secret),
    previous_secret_sealed: endpoint.secret_sealed,
    previous_secret_until: until,
    updated: now,
  });
  ctx.logger.info({ webhookId: endpoint.id }, 'webhook secret rotated');
  return { secret, previousSecretValidUntil: until };
}

export async function removeEndpoint(ctx: AppContext, caller: Caller, id: string): Promise<void> {
  const endpoint = await requireManagedEndpoint(ctx, caller, id);
  await deleteEndpoint(ctx.db.kysely, endpoint.id);
  ctx.logger.info({ webhookId: endpoint.id }, 'webhook endpoint deleted');
}

/** A page of the delivery log, newest first, each delivery with its latest attempts. */
export async function listDeliveries(ctx: AppContext, caller: Caller, id: string, query: DeliveriesQuery): Promise<{ rows: Array<{ delivery: DeliveryRow; attempts: AttemptRow[] }>; next: string | null }> {
  const endpoint = await requireManagedEndpoint(ctx, caller, id);
  const db = ctx.db.kysely;
  const limit = query.limit ?? 50;
  const before = query.cursor === undefined ? undefined : await findDelivery(db, endpoint.id, query.cursor);
  if (query.cursor !== undefined && !before) throw errors.badRequest('cursor is not a delivery of this endpoint');
  const page = await deliveryPage(db, endpoint.id, limit + 1, before);
  const shown = page.slice(0, limit);
  const attempts = await attemptsOf(db, shown.map((d) => d.id));
  return {
    rows: shown.map((delivery) => ({ delivery, attempts: attempts.filter((a) => a.delivery_id === delivery.id).slice(0, ATTEMPTS_SHOWN) })),
    next: page.length > limit ? shown.at(-1)!.id : null,
  };
}

/** Sends a delivery again (delivered, given up or pending): due at once, with a new retry window. */
export async function redeliver(ctx: AppContext, caller: Caller, id: string, deliveryId: string): Promise<DeliveryRow> {
  const endpoint = await requireManagedEndpoint(ctx, caller, id);
  const delivery = await findDelivery(ctx.db.kysely, endpoint.id, pathId(deliveryId, 'delivery'));
  if (!delivery) throw errors.notFound('delivery');
  const now = ctx.now();
  await updateDelivery(ctx.db.kysely, delivery.id, { state: 'pending', next_attempt_at: now, window_start: now, delivered_at: null });
  announceDue(ctx, endpoint.id);
  return (await findDelivery(ctx.db.kysely, endpoint.id, delivery.id))!;
}

/** Queues a `webhook.test` event to the endpoint (enabled or not: it is sent once enabled). */
export async function sendTestEvent(ctx: AppContext, caller: Caller, id: string): Promise<string> {
  const endpoint = await requireManagedEndpoint(ctx, caller, id);
  const now = ctx.now();
  const deliveryId = newId();
  await insertDeliveries(ctx.db.kysely, [
    { id: deliveryId, endpoint_id: endpoint.id, event_type: 'webhook.test', audit_seq: null, lock_id: null, payload: testEventBody(endpoint.id, now), state: 'pending', next_attempt_at: now, window_start: now, delivered_at: null, created: now },
  ]);
  announceDue(ctx, endpoint.id);
  return deliveryId;
}
