import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.js';

/** Unauthenticated service endpoints: the clock (so clients can correct theirs) and health. */
export function systemRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/time', {
      config: { auth: 'none' },
      schema: { tags: ['system'], summary: 'Server time in epoch milliseconds', security: [], response: { 200: Type.Object({ now: Type.Integer() }) } },
      handler: async () => ({ now: Math.round(ctx.now() * 1000) }),
    });
    app.get('/health', {
      config: { auth: 'none' },
      schema: { tags: ['system'], summary: 'Liveness', security: [], response: { 200: Type.Object({ status: Type.String() }) } },
      handler: async () => ({ status: 'ok' }),
    });
  };
}
