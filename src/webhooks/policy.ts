import type { Caller } from '../accounts/caller.js';
import { findOwnedApplication } from '../applications/queries.js';
import type { AppContext } from '../context.js';
import { errors } from '../errors/catalogue.js';
import { pathId } from '../ids/path-ids.js';
import { findEndpoint, type EndpointRow } from './queries.js';

/**
 * Who manages an endpoint (issue 32 point 1): a user's own endpoint is theirs alone; an
 * application's is its owners' (directly registered users, as for every /platform route). Anyone
 * else is told it does not exist (404), as for every object they may not see.
 */
export function mayManage(caller: Pick<Caller, 'userId' | 'applicationId'>, endpoint: Pick<EndpointRow, 'owner_user_id' | 'application_id'>, ownsApplication: boolean): boolean {
  if (endpoint.owner_user_id !== null) return endpoint.owner_user_id === caller.userId;
  return caller.applicationId === null && ownsApplication;
}

export async function requireManagedEndpoint(ctx: AppContext, caller: Caller, id: string): Promise<EndpointRow> {
  const endpoint = await findEndpoint(ctx.db.kysely, pathId(id, 'webhook'));
  const owns = endpoint?.application_id != null && (await findOwnedApplication(ctx.db.kysely, endpoint.application_id, caller.userId)) !== undefined;
  if (!endpoint || !mayManage(caller, endpoint, owns)) throw errors.notFound('webhook');
  return endpoint;
}

/** An application the caller owns, for its endpoints (404 otherwise; 403 for an application's own user). */
export async function requireOwnedApplicationFor(ctx: AppContext, caller: Caller, applicationId: string): Promise<string> {
  if (caller.applicationId !== null) throw errors.forbidden("an application's endpoints are managed by its owners, directly registered users");
  const id = pathId(applicationId, 'application');
  if (!(await findOwnedApplication(ctx.db.kysely, id, caller.userId))) throw errors.notFound('application');
  return id;
}
