import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { pickVersion } from '../http/negotiation.js';
import { errorResponses, NoContent } from '../http/schemas.js';
import { addressKey } from '../limits/address-key.js';
import { bearerToken } from './authenticate.js';
import { login } from './login.js';
import { register } from './registration.js';
import { Credentials, isTrueFlag, Registration, RegistrationQuery, TokenPairResponse } from './schemas.js';
import { endSession, refreshSession } from './sessions.js';

/** Registration, login, refresh and logout: the spec's "Account and authentication" token rows. */
export function authRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    const limitByIp = async (request: { ip: string }) => ctx.limits.authPerIp.consume(addressKey(request.ip));

    app.post('/auth/register', {
      config: { auth: 'none' },
      onRequest: limitByIp,
      schema: {
        tags: ['auth'],
        summary: 'Register (v1, v2, v3 by Accept header)',
        security: [],
        body: Registration,
        querystring: RegistrationQuery,
        response: { 200: TokenPairResponse, ...errorResponses(400, 406, 409, 429) },
      },
      handler: async (request) => {
        const version = pickVersion(request.apiVersion, [1, 2, 3] as const);
        const { email, password, displayName, ephemeralKey } = request.body;
        const { force, acceptInvite } = request.query;
        return register(ctx, { email, password, displayName: displayName ?? undefined, ephemeralKey, version, force: isTrueFlag(force), acceptInvite: isTrueFlag(acceptInvite) });
      },
    });

    app.post('/auth/token', {
      config: { auth: 'none' },
      onRequest: limitByIp,
      schema: {
        tags: ['auth'],
        summary: 'Log in (v1 returns the legacy key pair, v2 does not)',
        security: [],
        body: Credentials,
        response: { 200: TokenPairResponse, ...errorResponses(400, 401, 406, 429) },
      },
      handler: async (request) => login(ctx, { ...request.body, withKeys: pickVersion(request.apiVersion, [1, 2] as const) === 1, address: addressKey(request.ip) }),
    });

    app.post('/auth/token/refresh', {
      config: { auth: 'refresh' },
      onRequest: limitByIp,
      schema: {
        tags: ['auth'],
        summary: 'Exchange the refresh token (as Bearer) for a new token pair',
        response: { 200: TokenPairResponse, ...errorResponses(401, 429) },
      },
      handler: async (request) => refreshSession(ctx, bearerToken(request)),
    });

    for (const url of ['/token/destroy', '/auth/token/destroy']) {
      app.post(url, {
        schema: { tags: ['auth'], summary: 'Log out: ends the session of the auth token and its refresh token', response: { 204: NoContent, ...errorResponses(401) } },
        handler: async (request, reply) => {
          await endSession(ctx, request.caller);
          return reply.code(204).send(null);
        },
      });
    }

    app.get('/.well-known/jwks.json', {
      config: { auth: 'none' },
      schema: { tags: ['auth'], summary: "The service's token-signing public keys", security: [], response: { 200: Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) }) } },
      handler: async () => ctx.keys.jwks(),
    });
  };
}
