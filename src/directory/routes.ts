import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ThirdPartyTokens } from '../applications/third-party-tokens.js';
import type { AppContext } from '../context.js';
import { pickVersion } from '../http/negotiation.js';
import { errorResponses } from '../http/schemas.js';
import { DirectoryAnswer, DirectoryQuery } from './schemas.js';
import { queryDirectory, queryDirectoryBatch } from './service.js';

export function directoryRoutes(ctx: AppContext, tokens: ThirdPartyTokens): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post('/directory/query', {
      schema: {
        tags: ['directory'],
        summary: "Find users of the caller's application: v1 one user by exactly one key; v2 (Accept …api-v2+json) up to 25 by lists of keys",
        body: DirectoryQuery,
        response: { 200: DirectoryAnswer, ...errorResponses(400, 401, 403, 404, 406, 429) },
      },
      handler: async (request) =>
        pickVersion(request.apiVersion, [1, 2] as const) === 2
          ? queryDirectoryBatch(ctx, request.caller, request.body)
          : queryDirectory(ctx, request.caller, request.body, tokens),
    });
  };
}
