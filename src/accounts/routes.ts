import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { accountRoutes } from './account-routes.js';
import { authRoutes } from './auth-routes.js';
import { namedPlugin } from '../http/plugin-name.js';

/** The accounts feature's routes: signing up and in (/auth), then the signed-in account (/account). */
export function accountsRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    await app.register(namedPlugin('authRoutes', authRoutes(ctx)));
    await app.register(namedPlugin('accountRoutes', accountRoutes(ctx)));
  };
}
