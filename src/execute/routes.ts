import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { errorResponses } from '../http/schemas.js';
import { pathId } from '../locks/ids.js';
import { LockIdParams } from '../locks/schemas.js';
import { MAX_EXECUTE_BODY_BYTES } from './body.js';
import { executeOperation } from './service.js';
import { cachedLegacyKeyReader } from './token.js';

/** Bodies a little over the token limit still reach extractCompactJws, which answers 400 rather than 413. */
const EXECUTE_BODY_LIMIT = 4 * MAX_EXECUTE_BODY_BYTES;

/**
 * POST /device/{lockId}/execute. Registered in its own scope whose only parser hands the raw
 * bytes of any content type to the handler: the token's signature covers the exact bytes sent,
 * and clients send it bare under application/json (compat), which the JSON parser would refuse.
 */
export function executeRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const readLegacyKey = cachedLegacyKeyReader();
  return async (app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: EXECUTE_BODY_LIMIT }, (_request, body, done) => done(null, body));

    app.post('/device/:lockId/execute', {
      bodyLimit: EXECUTE_BODY_LIMIT,
      schema: {
        tags: ['locks'],
        summary: 'Carry out a signed operation (compact JWT body): lock/unlock, share, revoke, settings',
        params: LockIdParams,
        response: { 200: Type.Object({}, { description: 'the operation was carried out (for MUTATE_LOCK: confirmed by the lock)' }), ...errorResponses(400, 401, 403, 404, 409, 415, 429, 503, 504) },
      },
      handler: async (request) => {
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        await executeOperation(ctx, {
          caller: request.caller,
          lockId: pathId(request.params.lockId, 'lock'),
          body,
          contentType: request.headers['content-type'],
          callerIp: request.ip,
        }, readLegacyKey);
        return {};
      },
    });
  };
}
