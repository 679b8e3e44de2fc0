import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { sendJsonText } from '../http/json-text.js';
import { errorResponses, NoContent } from '../http/schemas.js';
import { LockIdParams, pathId } from '../ids/path-ids.js';
import { claimLock } from './claim.js';
import { decommissionLock } from './decommission.js';
import { presentLock, presentSiteLock } from './presenters.js';
import { getLock, listLocksAsJson, listLocksWithTiles, listShareableLocks } from './reads.js';
import { ClaimBody, LockResponse, LockUpdate, ShareableLockResponse, SiteLockResponse } from './schemas.js';
import { updateLock } from './update.js';
import { auditClientOf } from '../audit/client.js';

/** GET/PUT/POST /device…: the caller's locks, one lock, its per-member fields and settings, claiming. */
export function lockRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/device', {
      schema: { tags: ['locks'], summary: 'Every lock the caller is enrolled on', response: { 200: Type.Array(LockResponse), ...errorResponses(401, 406) } },
      // JSON text the database writes, made from the lock's one description and this very schema
      // (src/locks/lock-json.ts): what the schema, applied, would write (test/locks/list-json.test.ts).
      handler: async (request, reply) => sendJsonText(reply, await listLocksAsJson(ctx, request.caller)),
    });

    app.get('/device/favourite', {
      schema: { tags: ['locks'], summary: "The caller's pinned locks", response: { 200: Type.Array(SiteLockResponse), ...errorResponses(401, 406) } },
      handler: async (request) => (await listLocksWithTiles(ctx, request.caller, { favouritesOnly: true })).map(({ lock, tiles }) => presentSiteLock(lock, tiles)),
    });

    app.get('/device/shareable', {
      schema: { tags: ['locks'], summary: 'Locks the caller administers (and so may share)', response: { 200: Type.Array(ShareableLockResponse), ...errorResponses(401, 406) } },
      handler: async (request) => listShareableLocks(ctx, request.caller),
    });

    app.get('/device/:lockId', {
      schema: { tags: ['locks'], summary: 'One lock', params: LockIdParams, response: { 200: LockResponse, ...errorResponses(401, 404, 406) } },
      handler: async (request) => {
        const { lock, tiles } = await getLock(ctx, request.caller, pathId(request.params.lockId, 'lock'));
        return presentLock(lock, tiles);
      },
    });

    app.put('/device/:lockId', {
      schema: {
        tags: ['locks'],
        summary: "Change the caller's name, favourite and colour for the lock; settings need ADMIN",
        params: LockIdParams,
        body: LockUpdate,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) },
      },
      handler: async (request, reply) => {
        await updateLock(ctx, request.caller, pathId(request.params.lockId, 'lock'), request.body, auditClientOf(request));
        return reply.code(204).send(null);
      },
    });

    app.post('/device/:lockId/decommission', {
      schema: {
        tags: ['locks'],
        summary: 'Retire the lock for good (its owner; an active ADMIN once the owner has left): members, held shares and tiles go, its device secret, certificate and registration key stop working; audited DEVICE_DECOMMISSIONED. Beyond the spec',
        params: LockIdParams,
        response: { 204: NoContent, ...errorResponses(401, 403, 404) },
      },
      handler: async (request, reply) => {
        await decommissionLock(ctx, request.caller, pathId(request.params.lockId, 'lock'), auditClientOf(request));
        return reply.code(204).send(null);
      },
    });

    app.post('/device', {
      schema: {
        tags: ['locks'],
        summary: 'Claim an unowned lock with its registration key; the caller becomes its ADMIN',
        body: ClaimBody,
        response: { 200: LockResponse, ...errorResponses(400, 401, 404, 409) },
      },
      // A lock just claimed has no tiles: linking one needs its ADMIN, who did not exist before.
      handler: async (request) => presentLock(await claimLock(ctx, request.caller, request.body.key, request.body.name, auditClientOf(request)), []),
    });
  };
}
