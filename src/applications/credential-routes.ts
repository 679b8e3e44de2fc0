import type { AppContext } from '../context.js';
import { errorResponses, NoContent } from '../http/schemas.js';
import { addAuthKey, addCorsDomain, addIssuer, removeAuthKey, removeCorsDomain, removeIssuer } from './credentials.js';
import type { ApplicationsPlatform } from './platform.js';
import type { OwnedApplication, PlatformApp } from './platform-app.js';
import { ApplicationParams, AuthKeyBody, AuthKeyParams, SenderCodeQuery, UrlBody } from './schemas.js';
import { confirmSender, sendSenderCode } from './sender.js';

const tags = ['platform'];

/** Auth keys, issuers and CORS domains; `/auth/key` and `/auth/issuer` are aliases (decisions §1). */
export function registerCredentialRoutes(app: PlatformApp, ctx: AppContext, platform: ApplicationsPlatform, application: OwnedApplication): void {
  for (const path of ['key', 'auth/key']) {
    app.post(`/platform/application/:applicationId/${path}`, {
      schema: { tags, summary: 'Add a public JWK (RSA ≥ 2048, EC P-256/384/521, Ed25519) with a unique kid', params: ApplicationParams, body: AuthKeyBody, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409) } },
      handler: async (request, reply) => {
        await addAuthKey(ctx, application(request), request.body, platform);
        return reply.code(204).send(null);
      },
    });
    app.delete(`/platform/application/:applicationId/${path}/:kid`, {
      schema: { tags, summary: 'Remove an auth key (rotation)', params: AuthKeyParams, response: { 204: NoContent, ...errorResponses(401, 403, 404) } },
      handler: async (request, reply) => {
        await removeAuthKey(ctx, application(request), request.params.kid, platform);
        return reply.code(204).send(null);
      },
    });
  }

  for (const path of ['issuer', 'auth/issuer']) {
    app.post(`/platform/application/:applicationId/${path}`, {
      schema: { tags, summary: "Register a token issuer (the iss of the application's tokens), unique across applications", params: ApplicationParams, body: UrlBody, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409) } },
      handler: async (request, reply) => {
        await addIssuer(ctx, application(request), request.body.url, platform);
        return reply.code(204).send(null);
      },
    });
    app.delete(`/platform/application/:applicationId/${path}`, {
      schema: { tags, summary: 'Remove a token issuer', params: ApplicationParams, body: UrlBody, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
      handler: async (request, reply) => {
        await removeIssuer(ctx, application(request), request.body.url, platform);
        return reply.code(204).send(null);
      },
    });
  }

  app.post('/platform/application/:applicationId/sender/verify', {
    schema: { tags, summary: "Send a code to the application's senderEmail: its branding reaches mail once the address is proved", params: ApplicationParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 429) } },
    handler: async (request, reply) => {
      await sendSenderCode(ctx, request.caller, application(request));
      return reply.code(204).send(null);
    },
  });
  app.put('/platform/application/:applicationId/sender/verify', {
    schema: { tags, summary: 'Prove the sender address with the code it received', params: ApplicationParams, querystring: SenderCodeQuery, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
    handler: async (request, reply) => {
      await confirmSender(ctx, application(request), request.query.code);
      return reply.code(204).send(null);
    },
  });

  app.post('/platform/application/:applicationId/cors', {
    schema: { tags, summary: 'Permit a web app origin to call the API directly', params: ApplicationParams, body: UrlBody, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409) } },
    handler: async (request, reply) => {
      await addCorsDomain(ctx, application(request), request.body.url, platform);
      return reply.code(204).send(null);
    },
  });
  app.delete('/platform/application/:applicationId/cors', {
    schema: { tags, summary: 'Withdraw a web app origin', params: ApplicationParams, body: UrlBody, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
    handler: async (request, reply) => {
      await removeCorsDomain(ctx, application(request), request.body.url, platform);
      return reply.code(204).send(null);
    },
  });
}
