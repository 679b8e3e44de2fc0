import type { FastifyRequest } from 'fastify';
import { accountRoutes } from './accounts/routes/account.js';
import { authRoutes } from './accounts/routes/auth.js';
import { authenticate, bearerToken, type ExternalTokenVerifier } from './accounts/authenticate.js';
import type { AppContext } from './context.js';
import type { HttpApp } from './http/app.js';
import { systemRoutes } from './system/routes.js';

/**
 * Registers every feature's routes inside one scope whose hook authenticates each request
 * unless the route says `auth: 'none'` (secure by default).
 */
export async function registerRoutes(app: HttpApp, ctx: AppContext, external: ExternalTokenVerifier | null = null): Promise<void> {
  await app.register(async (api) => {
    api.decorateRequest('caller', undefined as never);
    api.addHook('onRequest', async (request: FastifyRequest) => {
      const auth = request.routeOptions.config?.auth ?? 'user';
      if (auth === 'user') {
        request.caller = await authenticate(ctx, external, bearerToken(request));
        await ctx.limits.requestsPerCaller.consume(request.caller.userId);
      } else {
        await ctx.limits.requestsPerCaller.consume(`ip:${request.ip}`);
      }
    });
    await api.register(systemRoutes(ctx));
    await api.register(authRoutes(ctx));
    await api.register(accountRoutes(ctx));
  });
}
