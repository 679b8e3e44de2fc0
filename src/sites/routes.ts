import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { errorResponses } from '../http/schemas.js';
import { pathId } from '../ids/path-ids.js';
import { presentSiteLock } from '../locks/presenters.js';
import { SiteLockResponse } from '../locks/schemas.js';
import { presentSite, presentSiteUser } from './presenters.js';
import { NewSiteBody, SiteChangesBody, SiteIdParams, SiteLockParams, SiteResponse, SiteUserResponse } from './schemas.js';
import { createOwnSite, listOwnSites, listSiteLocks, listSites, listSiteUsers, placeLock, updateOwnSite } from './service.js';

export function siteRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/site', {
      schema: { tags: ['sites'], summary: 'Sites where the caller is enrolled on at least one lock', response: { 200: Type.Array(SiteResponse), ...errorResponses(401, 406) } },
      handler: async (request) => (await listSites(ctx, request.caller)).map(presentSite),
    });

    // Sites made in the console (issue 29), beside the spec's read-only routes.
    app.post('/site', {
      schema: { tags: ['sites'], summary: 'Make a site of your own (lock administrators)', body: NewSiteBody, response: { 201: SiteResponse, ...errorResponses(400, 401, 403, 406) } },
      handler: async (request, reply) => reply.code(201).send(presentSite(await createOwnSite(ctx, request.caller, request.body))),
    });

    app.get('/site/mine', {
      schema: { tags: ['sites'], summary: 'The sites the caller made', response: { 200: Type.Array(SiteResponse), ...errorResponses(401, 406) } },
      handler: async (request) => (await listOwnSites(ctx, request.caller)).map(presentSite),
    });

    app.put('/site/:siteId', {
      schema: { tags: ['sites'], summary: 'Rename or recolour a site you made', params: SiteIdParams, body: SiteChangesBody, response: { 204: Type.Null(), ...errorResponses(400, 401, 404, 406) } },
      handler: async (request, reply) => {
        await updateOwnSite(ctx, request.caller, pathId(request.params.siteId, 'site'), request.body);
        return reply.code(204).send(null);
      },
    });

    for (const method of ['PUT', 'DELETE'] as const) {
      app.route({
        method,
        url: '/site/:siteId/device/:lockId',
        schema: {
          tags: ['sites'],
          summary: method === 'PUT' ? 'Put a lock you administer in a site you made' : 'Take a lock out of a site you made',
          params: SiteLockParams,
          response: { 204: Type.Null(), ...errorResponses(401, 403, 404, 406) },
        },
        handler: async (request, reply) => {
          await placeLock(ctx, request.caller, pathId(request.params.siteId, 'site'), pathId(request.params.lockId, 'lock'), method === 'PUT');
          return reply.code(204).send(null);
        },
      });
    }

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
