import type { Updateable } from 'kysely';
import type { Caller } from '../accounts/caller.js';
import type { AppContext } from '../context.js';
import { newId } from '../crypto/random.js';
import { inTransaction } from '../db/transaction.js';
import { generateEncryptionKey } from './encryption-key.js';
import { requireDirectUser, type ApplicationChanges } from './policy.js';
import { presentApplication } from './presenters.js';
import { deleteApplicationRow, findApplication, findApplicationParts, insertApplication, insertOwner, listOwnedApplications, updateApplicationRow, type ApplicationRow } from './queries.js';
import type { ApplicationCreate, ApplicationRecord, ApplicationUpdate } from './schemas.js';
import type { ApplicationsTable } from './tables.js';
import { checkApplicationFields } from './validation.js';

/** Where a logo may be hosted: the CDN, and the S3 bucket's public URL when one is configured. */
export function cdnBases(ctx: AppContext): string[] {
  return ctx.config.s3 ? [ctx.config.cdnUrl, ctx.config.s3.publicUrl] : [ctx.config.cdnUrl];
}

export async function presentOne(ctx: AppContext, row: ApplicationRow): Promise<ApplicationRecord> {
  return presentApplication(row, await findApplicationParts(ctx.db.kysely, [row.id]));
}

/** Creates an application owned by the caller, with its own RSA key for identity JWEs. */
export async function createApplication(ctx: AppContext, caller: Caller, input: ApplicationCreate): Promise<ApplicationRecord> {
  requireDirectUser(caller);
  checkApplicationFields(input, cdnBases(ctx));
  const id = newId();
  const key = await generateEncryptionKey(ctx.box, id);
  const now = ctx.now();
  await inTransaction(ctx.db, ctx.logger, async ({ db }) => {
    await insertApplication(db, {
      id,
      name: input.name,
      company_name: input.companyName,
      mailing_address: input.mailingAddress,
      privacy_policy: input.privacyPolicy ?? null,
      support_contact: input.supportContact ?? null,
      app_link: input.appLink ?? null,
      logo_url: input.logoUrl ?? null,
      email_preferences: input.emailPreferences ? JSON.stringify(input.emailPreferences) : null,
      encryption_public_jwk: JSON.stringify(key.publicJwk),
      encryption_private_sealed: key.privateSealed,
      created: now,
      updated: now,
    });
    await insertOwner(db, id, caller.userId, now);
  });
  ctx.logger.info({ applicationId: id, owner: caller.userId }, 'application created');
  return presentOne(ctx, (await findApplication(ctx.db.kysely, id))!);
}

export async function listApplications(ctx: AppContext, caller: Caller): Promise<ApplicationRecord[]> {
  requireDirectUser(caller);
  const rows = await listOwnedApplications(ctx.db.kysely, caller.userId);
  const parts = await findApplicationParts(ctx.db.kysely, rows.map((r) => r.id));
  return rows.map((row) => presentApplication(row, parts));
}

/** Sets the given fields; an optional field sent as null is cleared. Email preferences are replaced whole. */
export async function updateApplication(ctx: AppContext, application: ApplicationRow, input: ApplicationUpdate): Promise<void> {
  checkApplicationFields(input, cdnBases(ctx));
  const changes: Updateable<ApplicationsTable> = { updated: Math.max(ctx.now(), application.updated) };
  if (input.name !== undefined) changes.name = input.name;
  if (input.companyName !== undefined) changes.company_name = input.companyName;
  if (input.mailingAddress !== undefined) changes.mailing_address = input.mailingAddress;
  if (input.privacyPolicy !== undefined) changes.privacy_policy = input.privacyPolicy;
  if (input.supportContact !== undefined) changes.support_contact = input.supportContact;
  if (input.appLink !== undefined) changes.app_link = input.appLink;
  if (input.logoUrl !== undefined) changes.logo_url = input.logoUrl;
  if (input.emailPreferences !== undefined) changes.email_preferences = input.emailPreferences === null ? null : JSON.stringify(input.emailPreferences);
  await updateApplicationRow(ctx.db.kysely, application.id, changes);
}

/**
 * Deletes the application with its owners, keys, issuers and origins (cascade), so its tokens stop
 * working at once. Its users' rows stay (other features may reference them) but can no longer sign in.
 */
export async function deleteApplication(ctx: AppContext, application: ApplicationRow, changes: ApplicationChanges, afterDelete: () => Promise<void>): Promise<void> {
  await inTransaction(ctx.db, ctx.logger, async (uow) => {
    await deleteApplicationRow(uow.db, application.id);
    uow.onCommit(() => changes.changed(application.id));
    uow.onCommit(afterDelete);
  });
  ctx.logger.info({ applicationId: application.id }, 'application deleted');
}
