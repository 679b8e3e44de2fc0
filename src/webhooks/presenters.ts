import type { AttemptRow, DeliveryRow, EndpointRow } from './queries.js';
import type { Delivery, WebhookEndpoint } from './schemas.js';

const list = (text: string | null) => (text === null ? null : (JSON.parse(text) as string[]));

export function presentEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    applicationId: row.application_id,
    ownerUserId: row.owner_user_id,
    eventTypes: list(row.event_types) as WebhookEndpoint['eventTypes'],
    lockIds: list(row.lock_ids),
    siteIds: list(row.site_ids),
    enabled: row.enabled === 1,
    disabledReason: row.disabled_reason,
    previousSecretValidUntil: row.previous_secret_until,
    failureStreak: row.failure_streak,
    created: row.created,
    updated: row.updated,
  };
}

/** How many attempts each delivery shows. */
export const ATTEMPTS_SHOWN = 20;

export function presentDelivery(row: DeliveryRow, attempts: readonly AttemptRow[]): Delivery {
  return {
    id: row.id,
    eventType: row.event_type,
    lockId: row.lock_id,
    state: row.state as Delivery['state'],
    attempts: row.attempts,
    nextAttemptAt: row.state === 'pending' ? row.next_attempt_at : null,
    created: row.created,
    deliveredAt: row.delivered_at,
    log: attempts.slice(0, ATTEMPTS_SHOWN).map((a) => ({ at: a.at, status: a.status, latencyMs: a.latency_ms, responseExcerpt: a.response_excerpt, error: a.error })),
  };
}
