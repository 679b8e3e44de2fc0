import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { requireLogoContentType } from '../cdn/storage.js';
import type { AppContext } from '../context.js';
import { errorResponses, NoContent } from '../http/schemas.js';
import { registerCredentialRoutes } from './credential-routes.js';
import { registerOwnerRoutes } from './owner-routes.js';
import type { OwnedApplication, PlatformApp } from './platform-app.js';
import type { ApplicationsPlatform } from './platform.js';
import { requireDirectUser, requireOwnedApplication } from './policy.js';
import type { ApplicationRow } from './queries.js';
import { ApplicationCreate, ApplicationParams, ApplicationRecord, ApplicationUpdate, LogoRequest, LogoUpload } from './schemas.js';
import { createApplication, deleteApplication, listApplications, presentOne, updateApplication } from './service.js';

/**
 * `/platform/application*` (spec: Platform). Every route is for direct users (403 otherwise), and
 * every route naming an application answers 404 unless the caller owns it — checked once, in a
 * hook, before the body is even read (preParsing: after authentication, a hook of each route).
 */
export function platformRoutes(ctx: AppContext, platform: ApplicationsPlatform): FastifyPluginAsyncTypebox {
  return async (app) => {
    const owned = new WeakMap<FastifyRequest, ApplicationRow>();
    app.addHook('preParsing', async (request) => {
      requireDirectUser(request.caller);
      const id = (request.params as { applicationId?: string } | undefined)?.applicationId;
      if (id !== undefined) owned.set(request, await requireOwnedApplication(ctx, request.caller, id));
    });
    const application: OwnedApplication = (request) => owned.get(request)!;
    registerApplicationRoutes(app, ctx, platform, application);
    registerCredentialRoutes(app, ctx, platform, application);
    registerOwnerRoutes(app, ctx, application);
  };
}

function registerApplicationRoutes(app: PlatformApp, ctx: AppContext, platform: ApplicationsPlatform, application: OwnedApplication): void {
  const tags = ['platform'];
  app.post('/platform/application', {
    schema: { tags, summary: 'Create an application (the caller owns it)', body: ApplicationCreate, response: { 201: ApplicationRecord, ...errorResponses(400, 401, 403) } },
    handler: async (request, reply) => {
      const record = await createApplication(ctx, request.caller, request.body);
      return reply.code(201).header('location', `${ctx.config.baseUrl}/platform/application/${record.applicationId}`).send(record);
    },
  });

  app.get('/platform/application', {
    schema: { tags, summary: 'The applications the caller owns', response: { 200: Type.Array(ApplicationRecord), ...errorResponses(401, 403) } },
    handler: async (request) => listApplications(ctx, request.caller),
  });

  app.get('/platform/application/:applicationId', {
    schema: { tags, summary: 'One application', params: ApplicationParams, response: { 200: ApplicationRecord, ...errorResponses(401, 403, 404) } },
    handler: async (request) => presentOne(ctx, application(request)),
  });

  app.post('/platform/application/:applicationId', {
    schema: { tags, summary: 'Update any of the creation fields (null clears an optional one)', params: ApplicationParams, body: ApplicationUpdate, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
    handler: async (request, reply) => {
      await updateApplication(ctx, application(request), request.body);
      return reply.code(204).send(null);
    },
  });

  app.delete('/platform/application/:applicationId', {
    schema: { tags, summary: 'Delete the application (irreversible)', params: ApplicationParams, response: { 204: NoContent, ...errorResponses(401, 403, 404) } },
    handler: async (request, reply) => {
      const row = application(request);
      await deleteApplication(ctx, row, platform, () => platform.logos.removeApplication(row.id));
      return reply.code(204).send(null);
    },
  });

  app.post('/platform/application/:applicationId/logo', {
    schema: { tags, summary: 'A pre-signed address to upload the logo to', params: ApplicationParams, body: LogoRequest, response: { 200: LogoUpload, ...errorResponses(400, 401, 403, 404) } },
    handler: async (request) => platform.logos.createUpload(application(request).id, requireLogoContentType(request.body.contentType), ctx.now()),
  });
}
