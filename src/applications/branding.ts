import { DIRECT_NAMESPACE } from '../accounts/queries.js';
import type { Executor } from '../db/transaction.js';
import { DEFAULT_BRANDING, type Branding } from '../messaging/branding.js';
import { findApplication } from './queries.js';
import { preferencesOf, senderProved } from './sender.js';

/**
 * The look of messages to users of `namespace`: the service's own for direct users, else the
 * application's email preferences and logo over the defaults (spec: Email preferences), once its
 * sender address is proved (src/applications/sender.ts). Until then the service's own: an
 * application's users' addresses are its claims, never proved to us, and an invitation goes to an
 * address nobody has proved, so an unproved application's name, sender, links and text never
 * reach them (issue 27 point 2).
 */
export async function brandingFor(db: Executor, namespace: string): Promise<Branding> {
  if (namespace === DIRECT_NAMESPACE) return DEFAULT_BRANDING;
  const application = await findApplication(db, namespace);
  if (!application || !senderProved(application)) return DEFAULT_BRANDING;
  const preferences = preferencesOf(application);
  return {
    senderEmail: preferences.senderEmail ?? DEFAULT_BRANDING.senderEmail,
    senderName: preferences.senderName ?? DEFAULT_BRANDING.senderName,
    primaryColour: preferences.primaryColour ?? DEFAULT_BRANDING.primaryColour,
    secondaryColour: preferences.secondaryColour ?? DEFAULT_BRANDING.secondaryColour,
    logoUrl: application.logo_url,
    callToAction: preferences.callToAction ?? null,
  };
}
