import { DIRECT_NAMESPACE } from '../accounts/queries.js';
import type { Executor } from '../db/transaction.js';
import { DEFAULT_BRANDING, type Branding } from '../messaging/branding.js';
import { findApplication } from './queries.js';
import type { EmailPreferences } from './schemas.js';

/**
 * The look of messages to users of `namespace`: the service's own for direct users, else the
 * application's email preferences and logo over the defaults (spec: Email preferences).
 */
export async function brandingFor(db: Executor, namespace: string): Promise<Branding> {
  if (namespace === DIRECT_NAMESPACE) return DEFAULT_BRANDING;
  const application = await findApplication(db, namespace);
  if (!application) return DEFAULT_BRANDING;
  const preferences = application.email_preferences ? (JSON.parse(application.email_preferences) as EmailPreferences) : {};
  return {
    senderEmail: preferences.senderEmail ?? DEFAULT_BRANDING.senderEmail,
    senderName: preferences.senderName ?? DEFAULT_BRANDING.senderName,
    primaryColour: preferences.primaryColour ?? DEFAULT_BRANDING.primaryColour,
    secondaryColour: preferences.secondaryColour ?? DEFAULT_BRANDING.secondaryColour,
    logoUrl: application.logo_url,
    callToAction: preferences.callToAction ?? null,
  };
}
