import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Webhook signatures (issue 32): the Standard Webhooks scheme, through its reference package
 * `standardwebhooks` rather than our own HMAC code. A secret is `whsec_` + Base64 of 32 random
 * bytes; `webhook-signature` lists one `v1,<Base64 HMAC-SHA256>` per secret in force, separated by
 * spaces (two while a rotated secret overlaps the new one).
 */

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The three Standard Webhooks headers of `body`, signed with each of `secrets` (the current one first). */
export function signWebhook(secrets: readonly string[], id: string, at: Date, body: string): SignedHeaders {
  const signatures = secrets.map((secret) => new Webhook(secret).sign(id, at, body));
  return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signatures.join(' ') };
}
