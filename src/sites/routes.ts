import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { errorResponses } from '../http/schemas.js';
import { pathId } from '../ids/path-ids.js';
import { presentSiteLock } from '../locks/presenters.js';
import { SiteLockResponse } from '../locks/schemas.js';
import { presentSite, presentSiteUser } from './presenters.js';
import { SiteIdParams, SiteResponse, SiteUserResponse } from './schemas.js';
import { listSiteLocks, listSites, listSiteUsers } from './service.js';

export function siteRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/site', {
      schema: { tags: ['sites'], summary: 'Sites where the caller is enrolled on at least one lock', response: { 200: Type.Array(SiteResponse), ...errorResponses(401, 406) } },
      handler: async (request) => (await listSites(ctx, request.caller)).map(presentSite),
    });

    app.get('/site/:siteId/device', {
      schema: { tags: ['sites'], summary: "The caller's locks in the site", params: SiteIdParams, response: { 200: Type.Array(SiteLockResponse), ...errorResponses(401, 404, 406) } },
      handler: async (request) => (await listSiteLocks(ctx, request.caller, pathId(request.params.siteId, 'site'))).map(({ lock, tiles }) => presentSiteLock(lock, tiles)),
    });

    app.get('/site/:siteId/user', {
      schema: {
        tags: ['sites'],
        summary: "Users of the site's locks the caller administers",
        params: SiteIdParams,
        response: { 200: Type.Array(SiteUserResponse), ...errorResponses(401, 404, 406) },
      },
      handler: async (request) => (await listSiteUsers(ctx, request.caller, pathId(request.params.siteId, 'site'))).map(presentSiteUser),
    });
  };
}
