import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ProvenEntry } from '../audit/schemas-proofs.js';
import { EVENT_DESCRIPTIONS, TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES, type WebhookEventType } from './event-types.js';

export const EventType = Type.Unsafe<WebhookEventType>({ type: 'string', enum: [...WEBHOOK_EVENT_TYPES], description: 'a webhook event type' });

const Url = Type.String({ minLength: 8, maxLength: 2048, description: 'http:// or https:// URL the events are POSTed to; https strongly advised' });
const Description = Type.String({ maxLength: 200 });
const Ids = (what: string) => Type.Array(Type.String(), { minItems: 1, maxItems: 500, uniqueItems: true, description: `${what} UUIDs` });
const EventTypes = Type.Array(EventType, { minItems: 1, uniqueItems: true });

export const WebhookEndpoint = Type.Object({
  id: Type.String(),
  url: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  applicationId: Type.Union([Type.String(), Type.Null()], { description: 'the application that owns the endpoint (its owners manage it); null for a user\'s own endpoint' }),
  ownerUserId: Type.Union([Type.String(), Type.Null()], { description: 'the user whose endpoint it is (events of the locks they administer); null for an application\'s' }),
  eventTypes: Type.Union([Type.Array(EventType), Type.Null()], { description: 'the events sent; null: every type, those added later included' }),
  lockIds: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'only these locks (with siteIds: either); null: every lock in scope' }),
  siteIds: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'only the locks of these sites (with lockIds: either); null: every lock in scope' }),
  enabled: Type.Boolean(),
  disabledReason: Type.Union([Type.String(), Type.Null()], { description: 'why the service disabled it (a long failing streak); null otherwise' }),
  previousSecretValidUntil: Type.Union([Type.Number(), Type.Null()], { description: 'Unix seconds until which the secret before the last rotation still signs, beside the new one' }),
  failureStreak: Type.Integer({ description: 'failed attempts in a row' }),
  created: Type.Number(),
  updated: Type.Number(),
});
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

export const WebhookEndpointWithSecret = Type.Composite([
  WebhookEndpoint,
  Type.Object({ secret: Type.String({ description: 'the signing secret (whsec_…): shown this once, keep it' }) }),
]);

export const WebhookEndpointList = Type.Object({ endpoints: Type.Array(WebhookEndpoint) });

export const CreateWebhookBody = Type.Object(
  {
    url: Url,
    description: Type.Optional(Description),
    eventTypes: Type.Optional(EventTypes),
    lockIds: Type.Optional(Ids('lock')),
    siteIds: Type.Optional(Ids('site')),
    enabled: Type.Optional(Type.Boolean()),
    applicationId: Type.Optional(Type.String({ description: 'make it an endpoint of this application, which the caller owns (events of the locks its users administer)' })),
  },
  { additionalProperties: false },
);
/** As a route hands it on (the type provider reads the event type enum as unknown; the schema checked it). */
export type CreateWebhookBody = Omit<Static<typeof CreateWebhookBody>, 'eventTypes'> & { eventTypes?: readonly unknown[] };

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    description: Type.Optional(Type.Union([Description, Type.Null()])),
    eventTypes: Type.Optional(Type.Union([EventTypes, Type.Null()])),
    lockIds: Type.Optional(Type.Union([Ids('lock'), Type.Null()])),
    siteIds: Type.Optional(Type.Union([Ids('site'), Type.Null()])),
    enabled: Type.Optional(Type.Boolean({ description: 'true also ends an automatic disabling and its failing streak' })),
  },
  { additionalProperties: false },
);
export type UpdateWebhookBody = Omit<Static<typeof UpdateWebhookBody>, 'eventTypes'> & { eventTypes?: readonly unknown[] | null };

export const RotatedSecret = Type.Object({
  secret: Type.String({ description: 'the new signing secret (whsec_…): shown this once' }),
  previousSecretValidUntil: Type.Number({ description: 'Unix seconds until which the old secret still signs too' }),
});

export const WebhookIdParams = Type.Object({ webhookId: Type.String({ description: 'webhook endpoint UUID' }) });
export const DeliveryParams = Type.Object({ webhookId: Type.String(), deliveryId: Type.String() });

export const DeliveriesQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'deliveries per page (default 50)' })),
  cursor: Type.Optional(Type.String({ maxLength: 64, description: 'the `next` of the previous page' })),
});
export type DeliveriesQuery = Static<typeof DeliveriesQuery>;

export const DeliveryAttempt = Type.Object({
  at: Type.Number({ description: 'Unix seconds' }),
  status: Type.Union([Type.Integer(), Type.Null()], { description: "the receiver's HTTP status; null when none came" }),
  latencyMs: Type.Number(),
  responseExcerpt: Type.Union([Type.String(), Type.Null()], { description: "the start of the receiver's answer" }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'what went wrong, when no status came or the address was refused' }),
});

export const Delivery = Type.Object({
  id: Type.String({ description: 'also the webhook-id header' }),
  eventType: Type.String(),
  lockId: Type.Union([Type.String(), Type.Null()]),
  state: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  nextAttemptAt: Type.Union([Type.Number(), Type.Null()], { description: 'Unix seconds; null once delivered or given up' }),
  created: Type.Number(),
  deliveredAt: Type.Union([Type.Number(), Type.Null()]),
  log: Type.Array(DeliveryAttempt, { description: 'its attempts, newest first (the last 20)' }),
});
export type Delivery = Static<typeof Delivery>;

export const DeliveryList = Type.Object({
  deliveries: Type.Array(Delivery, { description: 'newest first' }),
  next: Type.Union([Type.String(), Type.Null()], { description: 'the cursor of the next (older) page; null at the end' }),
});

export const TestEventResponse = Type.Object({ deliveryId: Type.String() });

// ——— The events' bodies (the OpenAPI document's `webhooks` section) ———————————————————————————

export const DeliveryCheckpoint = Type.Object({
  checkpoint: Type.String({ description: 'the latest signed checkpoint (C2SP signed note) covering the entry; check it with the log\'s verifier key (GET /audit/checkpoint/key)' }),
  treeSize: Type.Integer(),
  rootHash: Type.String({ description: 'Base64' }),
});

/** The body of an event that comes from an audit entry. */
export function auditEventBody(type: string, description: string): TSchema {
  return Type.Object(
    {
      type: Type.Literal(type),
      timestamp: Type.String({ format: 'date-time', description: 'when the entry was recorded' }),
      data: Type.Object({
        lockId: Type.String(),
        entry: Type.Composite([ProvenEntry], { description: 'the audit entry with its leaf index and inclusion proof in the tree of checkpoint.treeSize (docs/audit-log.md)' }),
        checkpoint: DeliveryCheckpoint,
      }),
    },
    { description },
  );
}

export const TestEventBody = Type.Object(
  {
    type: Type.Literal(TEST_EVENT_TYPE),
    timestamp: Type.String({ format: 'date-time' }),
    data: Type.Object({ endpointId: Type.String(), message: Type.String() }),
  },
  { description: 'a test event asked for with POST /webhook/{id}/test; carries no audit entry' },
);

/**
 * The OpenAPI 3.1 `webhooks` section: one operation per event type, each a POST of its body with
 * the Standard Webhooks headers (docs/webhooks.md).
 */
export function openApiWebhooks(): Record<string, unknown> {
  const headers = [
    { name: 'webhook-id', in: 'header', required: true, schema: { type: 'string' }, description: 'the delivery id: the same on every retry (deduplicate on it)' },
    { name: 'webhook-timestamp', in: 'header', required: true, schema: { type: 'string' }, description: 'Unix seconds of this attempt' },
    { name: 'webhook-signature', in: 'header', required: true, schema: { type: 'string' }, description: 'space-separated v1,<Base64 HMAC-SHA256 of "id.timestamp.body">, one per secret in force' },
  ];
  const operation = (type: string, body: TSchema, description: string) => ({
    post: {
      summary: type,
      description,
      parameters: headers,
      requestBody: { required: true, content: { 'application/json': { schema: body } } },
      responses: { '2XX': { description: 'received; any other answer (or none within WEBHOOK_TIMEOUT_MS) is retried with back-off' } },
    },
  });
  const events: Record<string, unknown> = {};
  for (const type of WEBHOOK_EVENT_TYPES) events[type] = operation(type, auditEventBody(type, EVENT_DESCRIPTIONS[type as WebhookEventType]), EVENT_DESCRIPTIONS[type]);
  events[TEST_EVENT_TYPE] = operation(TEST_EVENT_TYPE, TestEventBody, 'a test event, sent on request');
  return events;
}
