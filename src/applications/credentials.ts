import type { AppContext } from '../context.js';
import { isUniqueViolation } from '../db/errors.js';
import { inTransaction, type Executor } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import { parseAuthKey } from './auth-keys.js';
import type { ApplicationChanges } from './policy.js';
import { deleteAuthKey, deleteCorsOrigin, deleteIssuer, insertAuthKey, insertCorsOrigin, insertIssuer, updateApplicationRow, type ApplicationRow } from './queries.js';
import { checkIssuerUrl, corsOriginOf } from './validation.js';

/**
 * Auth keys, issuers and CORS origins of an application. Each change touches the credential and
 * the record's lastUpdated in one transaction, then tells the caches (after commit).
 */
async function change(ctx: AppContext, application: ApplicationRow, changes: ApplicationChanges, conflict: string, work: (db: Executor) => Promise<boolean>): Promise<void> {
  try {
    await inTransaction(ctx.db, ctx.logger, async (uow) => {
      if (!(await work(uow.db))) return;
      await updateApplicationRow(uow.db, application.id, { updated: Math.max(ctx.now(), application.updated) });
      uow.onCommit(() => changes.changed(application.id));
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw errors.conflict(conflict);
    throw err;
  }
}

export async function addAuthKey(ctx: AppContext, application: ApplicationRow, body: unknown, changes: ApplicationChanges): Promise<void> {
  const jwk = parseAuthKey(body);
  await change(ctx, application, changes, `an auth key with kid "${jwk.kid}" is already registered`, async (db) => {
    await insertAuthKey(db, application.id, jwk.kid!, JSON.stringify(jwk), ctx.now());
    return true;
  });
}

export async function removeAuthKey(ctx: AppContext, application: ApplicationRow, kid: string, changes: ApplicationChanges): Promise<void> {
  let removed = false;
  await change(ctx, application, changes, 'conflict', async (db) => (removed = await deleteAuthKey(db, application.id, kid)));
  if (!removed) throw errors.notFound('auth key');
}

export async function addIssuer(ctx: AppContext, application: ApplicationRow, url: string, changes: ApplicationChanges): Promise<void> {
  checkIssuerUrl(url, ctx.tokens.issuer);
  await change(ctx, application, changes, 'this issuer is already registered', async (db) => {
    await insertIssuer(db, application.id, url, ctx.now());
    return true;
  });
}

export async function removeIssuer(ctx: AppContext, application: ApplicationRow, url: string, changes: ApplicationChanges): Promise<void> {
  let removed = false;
  await change(ctx, application, changes, 'conflict', async (db) => (removed = await deleteIssuer(db, application.id, url)));
  if (!removed) throw errors.notFound('issuer');
}

export async function addCorsDomain(ctx: AppContext, application: ApplicationRow, url: string, changes: ApplicationChanges): Promise<void> {
  const origin = corsOriginOf(url);
  await change(ctx, application, changes, 'this CORS domain is already registered', async (db) => {
    await insertCorsOrigin(db, application.id, origin, url, ctx.now());
    return true;
  });
}

export async function removeCorsDomain(ctx: AppContext, application: ApplicationRow, url: string, changes: ApplicationChanges): Promise<void> {
  const origin = corsOriginOf(url);
  let removed = false;
  await change(ctx, application, changes, 'conflict', async (db) => (removed = await deleteCorsOrigin(db, application.id, origin)));
  if (!removed) throw errors.notFound('CORS domain');
}
