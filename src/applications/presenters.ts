import { DIRECT_NAMESPACE } from '../accounts/queries.js';
import type { OwnerRow } from './owners.js';
import type { ApplicationParts, ApplicationRow } from './queries.js';
import type { ApplicationUserRow } from './user-list.js';
import type { ApplicationRecord, EmailPreferences, EmailPreferencesRecord } from './schemas.js';

/** The service's own email colours, shown when an application has not chosen its own. */
export const DEFAULT_EMAIL_COLOURS = { primaryColour: '#00283C', secondaryColour: '#45BDD1' } as const;

function presentEmailPreferences(stored: string | null): EmailPreferencesRecord {
  const preferences = stored === null ? {} : (JSON.parse(stored) as EmailPreferences);
  return { ...preferences, primaryColour: preferences.primaryColour ?? DEFAULT_EMAIL_COLOURS.primaryColour, secondaryColour: preferences.secondaryColour ?? DEFAULT_EMAIL_COLOURS.secondaryColour };
}

/** An auth key is for signatures only, so a key stored without `use` shows "sig" (the SDK's model requires it). */
function presentAuthKey(publicJwk: string): Record<string, string> {
  const jwk = JSON.parse(publicJwk) as Record<string, string>;
  return jwk.use === undefined ? { ...jwk, use: 'sig' } : jwk;
}

/** The application record of decisions §6; the sealed private key never appears in it. */
export function presentApplication(row: ApplicationRow, parts: ApplicationParts): ApplicationRecord {
  const mine = <T extends { application_id: string }>(rows: T[]) => rows.filter((r) => r.application_id === row.id);
  const record: ApplicationRecord = {
    applicationId: row.id,
    name: row.name,
    companyName: row.company_name,
    mailingAddress: row.mailing_address,
    owners: mine(parts.owners).map((o) => o.user_id),
    authKeys: Object.fromEntries(mine(parts.keys).map((k) => [k.kid, presentAuthKey(k.public_jwk)])),
    authDomains: mine(parts.issuers).map((i) => i.url),
    corsDomains: mine(parts.cors).map((c) => c.url),
    encryptionKey: JSON.parse(row.encryption_public_jwk) as Record<string, string>,
    lastUpdated: row.updated,
    emailPreferences: presentEmailPreferences(row.email_preferences),
  };
  if (row.privacy_policy !== null) record.privacyPolicy = row.privacy_policy;
  if (row.support_contact !== null) record.supportContact = row.support_contact;
  if (row.app_link !== null) record.appLink = row.app_link;
  if (row.logo_url !== null) record.logoUrl = row.logo_url;
  return record;
}

/** An owner as the official SDK's BasicApplicationOwnerDetailsResponse reads it. */
export function presentOwner(row: OwnerRow) {
  return { userId: row.id, email: row.email, displayName: row.display_name, orphan: row.orphan === 1, foreign: row.namespace !== DIRECT_NAMESPACE };
}

/** Unix seconds as the docs' ISO-8601 timestamp, to the second in UTC ("2023-08-03T08:37:41Z"). */
export function isoSeconds(unixSeconds: number): string {
  return new Date(Math.floor(unixSeconds) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * An application user; `*Indexed`: the field is set, so directory queries can find the user by it.
 * `lastUpdated` is ISO-8601, as the docs show it (get-application-users); the application record's
 * own `lastUpdated` stays Unix seconds, as its docs show.
 */
export function presentApplicationUser(row: ApplicationUserRow) {
  return {
    userId: row.id,
    foreignKey: row.external_id,
    displayName: row.display_name,
    email: row.email,
    emailVerified: row.email_verified === 1,
    telephone: row.telephone,
    telephoneVerified: row.telephone_verified === 1,
    emailIndexed: row.email !== null,
    telephoneIndexed: row.telephone !== null,
    foreignKeyIndexed: row.external_id !== null,
    lastUpdated: isoSeconds(row.updated),
  };
}
