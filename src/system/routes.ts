import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { readiness } from './readiness.js';

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

const Check = Type.Union([Type.Literal('ok'), Type.Literal('failed')]);
const ReadinessBody = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('unavailable')]),
  checks: Type.Object({ database: Check, broker: Check, redis: Type.Optional(Check) }),
});

/**
 * Probes for an orchestrator (Kubernetes, a load balancer). Registered outside the authenticated
 * scope: no token, no rate-limit count (which could itself need Redis), one database ping at most.
 */
export function probeRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/healthz', {
      config: { auth: 'none' },
      schema: { tags: ['system'], summary: 'Liveness: the process answers', security: [], response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
      handler: async () => ({ status: 'ok' as const }),
    });
    app.get('/readyz', {
      config: { auth: 'none' },
      schema: { tags: ['system'], summary: 'Readiness: database, broker link and Redis (when configured)', security: [], response: { 200: ReadinessBody, 503: ReadinessBody } },
      handler: async (_request, reply) => {
        const { ready, checks } = await readiness(ctx);
        const body = { status: ready ? ('ready' as const) : ('unavailable' as const), checks: checks as { database: 'ok' | 'failed'; broker: 'ok' | 'failed'; redis?: 'ok' | 'failed' } };
        if (ready) return body;
        // eslint-disable-next-line no-restricted-syntax -- the readiness report (declared 503 body), not an error
        return reply.code(503).header('retry-after', '5').send(body);
      },
    });
  };
}
