import type { AppContext } from '../context.js';
import { newId } from '../crypto/random.js';
import { signWebhook } from '../crypto/webhook-signing.js';
import type { Executor, UnitOfWork } from '../db/transaction.js';
import { deliveryBody } from './payload.js';
import { endpointOwnerEmails, findEndpoint, insertAttempt, updateDelivery, updateEndpoint, type DeliveryRow, type EndpointRow } from './queries.js';
import { signingSecrets } from './secrets.js';
import { postToTarget, type AttemptOutcome } from './target.js';

/** While no checkpoint covers its entry, a delivery looks again this soon (seconds); no attempt is counted. */
const UNCOVERED_RECHECK_S = 0.02;

/** The attempt was stopped (shutdown): nothing of it is recorded, and it is made again later. */
export class AttemptStopped extends Error {}

/** Seconds until the retry after `attempts` failed attempts: doubling from the base, capped, ±20 % so retries spread. */
export function backoffSeconds(config: AppContext['config']['webhooks'], attempts: number, random = Math.random()): number {
  const ms = Math.min(config.retryMaxMs, config.retryBaseMs * 2 ** Math.max(0, attempts - 1));
  return (ms * (0.8 + 0.4 * random)) / 1000;
}

/** Runs `work` in the unit of work that records the attempt's outcome. */
export type RecordIn = (work: (uow: UnitOfWork) => Promise<void>) => Promise<void>;

/**
 * Makes one attempt of `delivery` (claimed by the caller: a row lock on PostgreSQL, this
 * process's set on SQLite), reading with `db` and recording through `record`: the attempt in
 * the delivery log, the delivery's state and next attempt, the endpoint's failing streak (and its
 * disabling, with an email to its owners, past WEBHOOK_DISABLE_AFTER_*).
 */
export async function attemptDelivery(ctx: AppContext, db: Executor, delivery: DeliveryRow, record: RecordIn, signal: AbortSignal): Promise<void> {
  const config = ctx.config.webhooks;
  const endpoint = await findEndpoint(db, delivery.endpoint_id);
  if (!endpoint || endpoint.enabled !== 1) return;
  const now = ctx.now();
  if (now > delivery.window_start + config.retryWindowSeconds) {
    await record(({ db: tx }) => updateDelivery(tx, delivery.id, { state: 'failed' }));
    return;
  }
  const body = await deliveryBody(db, delivery);
  if (body === 'uncovered') {
    ctx.checkpoints.poke();
    await record(({ db: tx }) => updateDelivery(tx, delivery.id, { next_attempt_at: now + UNCOVERED_RECHECK_S }));
    return;
  }
  if (body === null) {
    await record(({ db: tx }) => updateDelivery(tx, delivery.id, { state: 'failed' }));
    return;
  }
  const headers = signWebhook(signingSecrets(ctx.box, endpoint, now), delivery.id, new Date(now * 1000), body);
  const outcome = await postToTarget(endpoint.url, { ...headers }, body, {
    allowPrivateAddresses: config.allowPrivateAddresses,
    timeoutMs: config.timeoutMs,
    maxBytes: config.responseMaxBytes,
    signal,
  });
  if (signal.aborted) throw new AttemptStopped();
  await record((uow) => recordOutcome(ctx, uow, endpoint, delivery, outcome, now));
}

async function recordOutcome(ctx: AppContext, uow: UnitOfWork, endpoint: EndpointRow, delivery: DeliveryRow, outcome: AttemptOutcome, at: number): Promise<void> {
  const config = ctx.config.webhooks;
  const ok = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
  await insertAttempt(uow.db, {
    id: newId(),
    delivery_id: delivery.id,
    endpoint_id: endpoint.id,
    at,
    status: outcome.status,
    latency_ms: outcome.latencyMs,
    response_excerpt: outcome.excerpt,
    error: outcome.error ?? (ok || outcome.status === null ? null : `answered ${outcome.status}`),
  });
  const attempts = delivery.attempts + 1;
  if (ok) {
    await updateDelivery(uow.db, delivery.id, { state: 'delivered', attempts, delivered_at: ctx.now() });
    if (endpoint.failure_streak !== 0 || endpoint.failing_since !== null) await updateEndpoint(uow.db, endpoint.id, { failure_streak: 0, failing_since: null });
    return;
  }
  const wait = outcome.retryAfterSeconds ?? backoffSeconds(config, attempts);
  const next = at + wait;
  const givenUp = next > delivery.window_start + config.retryWindowSeconds;
  await updateDelivery(uow.db, delivery.id, givenUp ? { state: 'failed', attempts } : { attempts, next_attempt_at: next });
  // The streak as it stands in the database (other attempts of this endpoint run at the same time).
  const current = await findEndpoint(uow.db, endpoint.id);
  if (!current) return;
  const streak = current.failure_streak + 1;
  const failingSince = current.failing_since ?? at;
  const disable = current.enabled === 1 && streak >= config.disableAfterFailures && at - failingSince >= config.disableAfterSeconds;
  const reason = `disabled after ${streak} failed attempts in a row since ${new Date(failingSince * 1000).toISOString()}`;
  await updateEndpoint(uow.db, endpoint.id, {
    failure_streak: streak,
    failing_since: failingSince,
    ...(disable ? { enabled: 0, disabled_reason: reason, updated: at } : {}),
  });
  if (!disable) return;
  ctx.logger.warn({ webhookId: endpoint.id }, 'webhook endpoint disabled after a failing streak');
  const emails = await endpointOwnerEmails(uow.db, endpoint);
  uow.onCommit(() => {
    for (const to of emails) {
      ctx.mailer.sendLater('webhook disabled notice', async () => ({
        to,
        subject: 'A Latchkey webhook endpoint was disabled',
        text: `Your webhook endpoint ${endpoint.url} (${endpoint.id}) was ${reason}.\n\nEvents are no longer sent to it. Fix the receiver, then enable the endpoint again (PUT /webhook/${endpoint.id} with "enabled": true) and redeliver what it missed.`,
        html: `<p>Your webhook endpoint <code>${escapeHtml(endpoint.url)}</code> (${endpoint.id}) was ${escapeHtml(reason)}.</p><p>Events are no longer sent to it. Fix the receiver, then enable the endpoint again and redeliver what it missed.</p>`,
      }));
    }
  });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
