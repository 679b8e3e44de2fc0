import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { errors } from '../errors/catalogue.js';
import { handleError } from './error-handler.js';
import { negotiate } from './negotiation.js';

export type HttpApp = FastifyInstance<
  import('node:http').Server,
  import('node:http').IncomingMessage,
  import('node:http').ServerResponse,
  Logger,
  TypeBoxTypeProvider
>;

declare module 'fastify' {
  interface FastifyRequest {
    /** The API version the caller asked for through its Accept header. */
    apiVersion: number;
  }
  interface FastifyContextConfig {
    /** Who may call the route: a signed-in user (default), anyone, or a refresh token's holder. */
    auth?: 'user' | 'none' | 'refresh';
    /** The route answers text/event-stream instead of JSON. */
    eventStream?: boolean;
  }
}

export interface HttpAppOptions {
  logger: Logger;
  baseUrl: string;
  trustProxy: string[];
  bodyLimit?: number;
}

/**
 * The bare HTTP application: negotiation, errors, JSON parsing, request ids and the OpenAPI
 * document. Features register their routes on it afterwards (see src/routes.ts).
 */
export async function createHttpApp(options: HttpAppOptions): Promise<HttpApp> {
  const app = Fastify({
    loggerInstance: options.logger,
    bodyLimit: options.bodyLimit ?? 64 * 1024,
    trustProxy: options.trustProxy.length > 0 ? options.trustProxy : false,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 2048 },
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    return503OnClosing: true,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: false } },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as HttpApp;

  app.decorateRequest('apiVersion', 1);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    const negotiated = negotiate(request.headers.accept);
    request.apiVersion = negotiated.version;
    const wantsStream = request.routeOptions.config?.eventStream === true;
    if (wantsStream ? !negotiated.acceptsEventStream && !negotiated.acceptsJson : !negotiated.acceptsJson) throw errors.notAcceptable();
  });

  // Clients send `Content-Type: application/json` with an empty body on body-less POSTs (compat).
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(/^application\/([\w.+-]+\+)?json$/i, { parseAs: 'string' }, (request, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, undefined);
    defaultJson(request, body as string, done);
  });

  app.setErrorHandler((err, request, reply) => handleError(err, request, reply));
  app.setNotFoundHandler((request, reply) => handleError(errors.notFound(), request, reply));

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Latchkey door-access API', version: '1.0.0', description: 'Self-hostable door-access service.' },
      servers: [{ url: options.baseUrl }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
  app.get('/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async () => app.swagger());
  return app;
}
