import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ThirdPartyTokens } from '../applications/third-party-tokens.js';
import type { AppContext } from '../context.js';
import { errorResponses } from '../http/schemas.js';
import { DirectoryQuery, DirectoryResult } from './schemas.js';
import { queryDirectory } from './service.js';

export function directoryRoutes(ctx: AppContext, tokens: ThirdPartyTokens): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post('/directory/query', {
      schema: {
        tags: ['directory'],
        summary: "Find a user of the caller's application by exactly one key",
        body: DirectoryQuery,
        response: { 200: DirectoryResult, ...errorResponses(400, 401, 404) },
      },
      handler: async (request) => queryDirectory(ctx, request.caller, request.body, tokens),
    });
  };
}
