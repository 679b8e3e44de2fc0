import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { errorResponses } from '../http/schemas.js';
import { LockIdParams, pathId } from '../ids/path-ids.js';
import { cachedLegacyKeyReader } from '../crypto/operation-token.js';
import { auditClientOf } from '../audit/client.js';
import { MAX_EXECUTE_BODY_BYTES } from './body.js';
import { executeOperation } from './execute.js';
import { submitLockdown } from './lockdown.js';
import { readLockdowns } from './lockdown-reads.js';
import { LockdownList, LockdownQuery } from './lockdown-schemas.js';
import { QueuedOperationSchema, readQueuedOperation } from './queue.js';
import { namedPlugin } from '../http/plugin-name.js';

/** Bodies a little over the token limit still reach extractCompactJws, which answers 400 rather than 413. */
const EXECUTE_BODY_LIMIT = 4 * MAX_EXECUTE_BODY_BYTES;

/**
 * The body as the OpenAPI document shows it. No `type` (nor `pattern`, which needs one): the scope's
 * parser hands the handler a Buffer, which `type: 'string'` would refuse; extractCompactJws checks
 * the bytes.
 */
const CompactJws = Type.Unsafe<Buffer>({
  description: 'the signed operation as a compact JWS, text: header.payload.signature, each Base64url; EdDSA with the certificate chain in x5c, or RS256 with a legacy key; at most 16 KiB',
  contentMediaType: 'application/jwt',
  examples: ['eyJhbGciOiJFZERTQSIsIng1YyI6WyLigKYiXX0.eyJpc3MiOiLigKYiLCJvcGVyYXRpb24iOnsidHlwZSI6Ik1VVEFURV9MT0NLIiwibG9ja2VkIjpmYWxzZX19.c2lnbmF0dXJl'],
});
const COMPACT_JWS_JSON = { ...CompactJws, description: `${CompactJws.description}; under a JSON content type the bare token, or the token as a JSON string (compat)` };

/**
 * POST /device/{lockId}/execute. Registered in its own scope whose only parser hands the raw
 * bytes of any content type to the handler: the token's signature covers the exact bytes sent,
 * and clients send it bare under application/json (compat), which the JSON parser would refuse.
 */
export function operationRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const readLegacyKey = cachedLegacyKeyReader();
  return async (app) => {
    // Bodiless: the parsers removed below do not concern them.
    await app.register(namedPlugin('queuedOperationRoutes', queuedOperationRoutes(ctx)));
    await app.register(namedPlugin('lockdownReadRoutes', lockdownReadRoutes(ctx)));
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: EXECUTE_BODY_LIMIT }, (_request, body, done) => done(null, body));

    app.post('/device/:lockId/execute', {
      bodyLimit: EXECUTE_BODY_LIMIT,
      schema: {
        tags: ['locks'],
        summary: 'Carry out a signed operation (compact JWT body): lock/unlock, share, revoke, settings',
        params: LockIdParams,
        body: { content: { 'application/jwt': { schema: CompactJws }, 'text/plain': { schema: CompactJws }, 'application/json': { schema: COMPACT_JWS_JSON } } },
        response: {
          200: Type.Object({}, { description: 'the operation was carried out (for MUTATE_LOCK: confirmed by the lock)' }),
          202: { ...QueuedOperationSchema, description: 'the operation expires more than 60 s from now: queued for the lock, carried out when it is online (Location: its status)' },
          ...errorResponses(400, 401, 403, 404, 409, 415, 429, 503, 504),
        },
      },
      handler: async (request, reply) => {
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const queued = await executeOperation(ctx, {
          caller: request.caller,
          lockId: pathId(request.params.lockId, 'lock'),
          body,
          contentType: request.headers['content-type'],
          callerIp: request.ip,
          client: auditClientOf(request),
        }, readLegacyKey);
        if (queued === undefined) return {};
        return reply.code(202).header('location', `/device/${queued.lockId}/operations/${queued.id}`).send(queued);
      },
    });

    app.post('/lockdown', {
      bodyLimit: EXECUTE_BODY_LIMIT,
      schema: {
        tags: ['locks'],
        summary: 'Lock down one lock, a site or all your locks (a signed LOCKDOWN), or sign its lift (LIFT_LOCKDOWN); the locks enforce it themselves',
        body: { content: { 'application/jwt': { schema: CompactJws }, 'text/plain': { schema: CompactJws }, 'application/json': { schema: COMPACT_JWS_JSON } } },
        response: { 200: LockdownOutcomeSchema, ...errorResponses(400, 401, 403, 404, 409, 415, 429) },
      },
      handler: async (request) => {
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        return submitLockdown(ctx, { caller: request.caller, body, contentType: request.headers['content-type'], client: auditClientOf(request) }, readLegacyKey);
      },
    });
  };
}

const LockdownOutcomeSchema = Type.Object({
  lockdownId: Type.String(),
  quorum: Type.Integer({ description: 'distinct administrators whose lifts it takes' }),
  locks: Type.Array(Type.Object({ lockId: Type.String(), lifts: Type.Integer({ description: 'lifts signed that name this lock' }), lifted: Type.Boolean() })),
});

/** GET /device/{lockId}/operations/{operationId}: the status of a queued operation (served beyond the spec; docs/decisions.md). */
function queuedOperationRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/device/:lockId/operations/:operationId', {
      schema: {
        tags: ['locks'],
        summary: 'The status of a signed operation queued for the lock (POST /device/{id}/execute answered 202): for its sender and the lock\'s admins',
        params: Type.Object({ lockId: Type.String({ description: 'lock UUID' }), operationId: Type.String({ description: 'queued operation UUID' }) }),
        response: { 200: QueuedOperationSchema, ...errorResponses(401, 404) },
      },
      handler: async (request) => readQueuedOperation(ctx, request.caller, pathId(request.params.lockId, 'lock'), pathId(request.params.operationId, 'operation')),
    });
  };
}

/** GET /lockdowns: the lockdowns holding on the caller's locks, for their administrators (issue 31 point 4). */
function lockdownReadRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/lockdowns', {
      schema: {
        tags: ['locks'],
        summary: 'The lockdowns holding on locks you administer: who declared them, their scope, k, responders, the lifts signed so far and what each lock says it enforces',
        querystring: LockdownQuery,
        response: { 200: LockdownList, ...errorResponses(400, 401, 403, 404) },
      },
      handler: async (request) => ({ lockdowns: await readLockdowns(ctx, request.caller, request.query) }),
    });
  };
}
