import type { Caller } from '../accounts/caller.js';
import type { AppContext } from '../context.js';
import { errors } from '../errors/catalogue.js';
import { findOwnedApplication, type ApplicationRow } from './queries.js';

/** `/platform/*` is for users registered directly (decisions §2); an application's users get 403. */
export function requireDirectUser(caller: Caller): void {
  if (caller.applicationId !== null) throw errors.forbidden('the platform endpoints are for directly registered users');
}

/** An application the caller owns. Not owning one is indistinguishable from it not existing (404). */
export async function requireOwnedApplication(ctx: AppContext, caller: Caller, applicationId: string): Promise<ApplicationRow> {
  requireDirectUser(caller);
  const application = await findOwnedApplication(ctx.db.kysely, applicationId, caller.userId);
  if (!application) throw errors.notFound('application');
  return application;
}

/**
 * Told whenever an application's credentials or origins change, so caches can drop what they
 * hold; resolves once the other instances have been told (never rejects).
 */
export interface ApplicationChanges {
  changed(applicationId: string): Promise<void>;
}
