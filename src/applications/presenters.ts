import type { ApplicationParts, ApplicationRow } from './queries.js';
import type { ApplicationRecord, EmailPreferences } from './schemas.js';

/** The application record of decisions §6; the sealed private key never appears in it. */
export function presentApplication(row: ApplicationRow, parts: ApplicationParts): ApplicationRecord {
  const mine = <T extends { application_id: string }>(rows: T[]) => rows.filter((r) => r.application_id === row.id);
  const record: ApplicationRecord = {
    applicationId: row.id,
    name: row.name,
    companyName: row.company_name,
    mailingAddress: row.mailing_address,
    owners: mine(parts.owners).map((o) => o.user_id),
    authKeys: Object.fromEntries(mine(parts.keys).map((k) => [k.kid, JSON.parse(k.public_jwk) as Record<string, string>])),
    authDomains: mine(parts.issuers).map((i) => i.url),
    corsDomains: mine(parts.cors).map((c) => c.url),
    encryptionKey: JSON.parse(row.encryption_public_jwk) as Record<string, string>,
    lastUpdated: row.updated,
  };
  if (row.privacy_policy !== null) record.privacyPolicy = row.privacy_policy;
  if (row.support_contact !== null) record.supportContact = row.support_contact;
  if (row.app_link !== null) record.appLink = row.app_link;
  if (row.email_preferences !== null) record.emailPreferences = JSON.parse(row.email_preferences) as EmailPreferences;
  if (row.logo_url !== null) record.logoUrl = row.logo_url;
  return record;
}
