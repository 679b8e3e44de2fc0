import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { pickVersion } from '../http/negotiation.js';
import { errorResponses } from '../http/schemas.js';
import { readLockLog, readUserLog, toPage } from './logs.js';
import { presentLockEntryV1, presentLockEntryV2, presentUserEntry } from './presenters.js';
import { LockIdParams, UserIdParams, pathId } from '../ids/path-ids.js';
import { LockAuditEntry, LogQuery, UserAuditEntry } from './schemas.js';
import { auditProofRoutes } from './proof-routes.js';
import { namedPlugin } from '../http/plugin-name.js';

/** The spec's lock audit (v1, v2) and user audit endpoints. */
export function auditRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    await app.register(namedPlugin('auditProofRoutes', auditProofRoutes(ctx)));

    app.get('/device/:lockId/log', {
      schema: {
        tags: ['audit'],
        summary: "A lock's audit trail, newest first (admins; v2 adds email, displayName and the sharing types)",
        params: LockIdParams,
        querystring: LogQuery,
        response: { 200: Type.Array(LockAuditEntry), ...errorResponses(400, 401, 403, 404, 406) },
      },
      handler: async (request) => {
        const version = pickVersion(request.apiVersion, [1, 2] as const);
        const rows = await readLockLog(ctx, request.caller, pathId(request.params.lockId, 'lock'), toPage(request.query), version);
        return rows.map(version === 1 ? presentLockEntryV1 : presentLockEntryV2);
      },
    });

    app.get('/user/:userId/log', {
      schema: {
        tags: ['audit'],
        summary: "A user's audit trail, newest first (the user; admins see their own locks' part)",
        params: UserIdParams,
        querystring: LogQuery,
        response: { 200: Type.Array(UserAuditEntry), ...errorResponses(400, 401, 404, 406) },
      },
      handler: async (request) => {
        const userId = pathId(request.params.userId, 'user');
        const rows = await readUserLog(ctx, request.caller, userId, toPage(request.query));
        return rows.map((row) => presentUserEntry(row, userId));
      },
    });
  };
}
