import type { SecretBox } from '../crypto/secret-box.js';
import type { EndpointRow } from './queries.js';

/** The sealing context of an endpoint's secrets: a sealed secret cannot be moved to another endpoint. */
export const secretContext = (endpointId: string) => `webhook-secret:${endpointId}`;

export function sealSecret(box: SecretBox, endpointId: string, secret: string): string {
  return box.seal(secret, secretContext(endpointId));
}

/** The secrets that sign now: the current one, then the one before the last rotation while it overlaps. */
export function signingSecrets(box: SecretBox, endpoint: Pick<EndpointRow, 'id' | 'secret_sealed' | 'previous_secret_sealed' | 'previous_secret_until'>, now: number): string[] {
  const secrets = [box.open(endpoint.secret_sealed, secretContext(endpoint.id)).toString('utf8')];
  if (endpoint.previous_secret_sealed !== null && endpoint.previous_secret_until !== null && endpoint.previous_secret_until > now) {
    secrets.push(box.open(endpoint.previous_secret_sealed, secretContext(endpoint.id)).toString('utf8'));
  }
  return secrets;
}
