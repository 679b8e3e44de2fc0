import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { inviteRoutes } from '../../invites/routes.js';
import { siteRoutes } from '../../sites/routes.js';
import { tileRoutes } from '../../tiles/routes.js';
import { deviceRoutes } from './devices.js';
import { memberRoutes } from './members.js';

/** Locks, their members, sites, tiles and invitations: one line in src/routes.ts. */
export function lockRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    await app.register(deviceRoutes(ctx));
    await app.register(memberRoutes(ctx));
    await app.register(siteRoutes(ctx));
    await app.register(tileRoutes(ctx));
    await app.register(inviteRoutes(ctx));
  };
}
