import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyRequest, type onRequestHookHandler, type RouteOptions } from 'fastify';
import type { Logger } from 'pino';
import { errors } from '../errors/catalogue.js';
import { registerJsonParser } from './body-parsing.js';
import { registerCors, type CorsOpenPath, type CorsOriginCheck } from './cors.js';
import { checkDeclaredStatuses } from './declared-statuses.js';
import { handleError } from './error-handler.js';
import type { HttpApp } from './http-app.js';
import { notFoundHandler } from './not-found.js';
import { acceptRuleOf, DOCS_PREFIX, negotiateRequest } from './route-negotiation.js';
import { declareErrorStatuses } from './schemas.js';
import { serializeRequest } from './request-log.js';
import { docsCsp, securityHeaders } from './security-headers.js';
import { SchemaCompilers } from './schema-compilers.js';
import { AJV_OPTIONS } from './validation.js';
import { namedPlugin } from './plugin-name.js';

export type { HttpApp } from './http-app.js';

export interface HttpAppOptions {
  logger: Logger;
  baseUrl: string;
  trustProxy: string[];
  bodyLimit?: number;
  /** Milliseconds a client has to send a whole request (HTTP_REQUEST_TIMEOUT_MS); 30 s unless said. */
  requestTimeoutMs?: number;
  /** Whether a browser origin may call the API (CORS, decisions §6); no CORS headers at all when absent. */
  corsOrigin?: CorsOriginCheck;
  /** Paths any origin may call without credentials (URLs that carry their own permission). */
  corsOpenPath?: CorsOpenPath;
  /** Given (tests): replies of a status their route does not declare become 500s told here (./declared-statuses.ts). */
  onUndeclaredStatus?: (what: string) => void;
  /** The OpenAPI document's `webhooks` section: the requests the service makes (src/webhooks/schemas.ts). */
  openApiWebhooks?: Record<string, unknown>;
  /** Compiled schemas shared with other apps of this process (tests start many); the app's own otherwise. */
  schemaCompilers?: SchemaCompilers;
}

/**
 * The hooks placed by addRouteHook (negotiation first), so that each later one goes after those
 * before it: they run in the order they were added, before the hooks a route declares itself.
 */
const routeHooks = new WeakSet<object>();

function onRequestHooks(route: RouteOptions): onRequestHookHandler[] {
  const hooks = route.onRequest;
  return hooks === undefined ? [] : Array.isArray(hooks) ? [...hooks] : [hooks];
}

/**
 * Adds `hook` to a route's onRequest hooks, after the hooks added this way before it (negotiation,
 * so a 406 comes first) and before the hooks the route declares itself. For an `onRoute` hook of
 * a scope, such as authentication: a hook decided per route when it is declared costs no lookup
 * of the route's options per request (`request.routeOptions` is rebuilt at every read).
 */
export function addRouteHook(route: RouteOptions, hook: onRequestHookHandler): void {
  const hooks = onRequestHooks(route);
  let at = 0;
  while (at < hooks.length && routeHooks.has(hooks[at]!)) at++;
  hooks.splice(at, 0, hook);
  routeHooks.add(hook);
  route.onRequest = hooks;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Whether Fastify reads a request body for the route (any of its methods). */
function takesBody(route: RouteOptions): boolean {
  return (Array.isArray(route.method) ? route.method : [route.method]).some((method) => BODY_METHODS.has(method));
}

/** Why a request is refused before routing (shutting down, a NUL in the URL), or undefined. */
function refusal(request: FastifyRequest, closing: boolean): Error | undefined {
  if (closing) return errors.shuttingDown();
  // PostgreSQL text cannot hold NUL: refuse it in any path or query value up front.
  if (request.url.includes('%00')) return errors.badRequest('the URL must not contain NUL characters');
  return undefined;
}

/**
 * The bare HTTP application: negotiation, errors, JSON parsing, request ids and the OpenAPI
 * document. Features register their routes on it afterwards (see src/routes.ts).
 */
export async function createHttpApp(options: HttpAppOptions): Promise<HttpApp> {
  // Fastify's own request lines are at info level. Quieter than that, Fastify gets no logger: it
  // then skips a child logger and response listeners per request (~2 µs of ~18, docs/decisions.md),
  // and `request.serviceLog` makes one only for a request that has something to log.
  const requestLogging = options.logger.isLevelEnabled('info');
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const app = Fastify({
    ...(requestLogging ? { loggerInstance: options.logger.child({}, { serializers: { req: serializeRequest } }) } : {}),
    bodyLimit: options.bodyLimit ?? 64 * 1024,
    // A stalled request (headers or body trickling in) is answered 408 and closed once this passes;
    // Node looks for such requests every connectionsCheckingInterval (30 s by default: too coarse).
    requestTimeout: requestTimeoutMs,
    http: { connectionsCheckingInterval: Math.min(requestTimeoutMs, 1000), headersTimeout: Math.min(requestTimeoutMs, 60_000) },
    trustProxy: options.trustProxy.length > 0 ? options.trustProxy : false,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 2048 },
    // The caller's X-Request-Id is kept for tracing when it looks like an id; anything else is replaced.
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
    },
    // Requests that arrive while closing get the 503 below, in the documented error format.
    return503OnClosing: false,
    // A URL that does not decode (e.g. `%ff`) is refused in the documented error format too.
    frameworkErrors: (err, request, reply) => handleError(err, request, reply),
    ajv: { customOptions: AJV_OPTIONS },
    schemaController: { compilersFactory: (options.schemaCompilers ?? new SchemaCompilers()).factory },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as HttpApp;

  app.decorateRequest('apiVersion', 1);
  app.decorateRequest('serviceLog', {
    getter(this: FastifyRequest) {
      return requestLogging ? (this.log as Logger) : options.logger.child({ reqId: this.id });
    },
  });
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    // A request still running keeps its connection until the response is sent; Node then holds an
    // idle keep-alive connection for keepAliveTimeout (72 s here), and close waits for it. Read
    // when each response finishes, so from now on a finished connection closes at once.
    app.server.keepAliveTimeout = 1;
  });
  // Before negotiation, so that even a refused request carries the CORS headers a browser needs to read it.
  if (options.corsOrigin) await registerCors(app, options.corsOrigin, options.corsOpenPath);
  // A callback hook, not async: it never waits, and every request passes through it.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done(refusal(request, closing));
  });
  // Negotiation (decisions §1) is a hook of each route, built when the route is declared.
  app.addHook('onRoute', (route) => {
    const rule = acceptRuleOf(route);
    addRouteHook(route, (request, _reply, done) => done(negotiateRequest(request, rule)));
    // What this layer answers for any route, declared here once: 406 to an Accept header admitting
    // nothing the route answers; 400 (malformed JSON, a NUL) and 415 (a type it cannot read) to
    // the body of a method that takes one (./body-parsing.ts), whether or not the route reads it.
    if (rule !== 'any') declareErrorStatuses(route, 406);
    if (takesBody(route)) declareErrorStatuses(route, 400, 415);
  });

  if (options.onUndeclaredStatus) checkDeclaredStatuses(app, options.onUndeclaredStatus);
  registerJsonParser(app);
  app.setErrorHandler((err, request, reply) => handleError(err, request, reply));
  app.setNotFoundHandler(notFoundHandler(app));

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Latchkey door-access API', version: '1.0.0', description: 'Self-hostable door-access service.' },
      servers: [{ url: options.baseUrl }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
      ...(options.openApiWebhooks ? { webhooks: options.openApiWebhooks } : {}),
    },
  });
  // In a context of its own, so the docs' headers reach only the docs' routes.
  const csp = docsCsp(options.baseUrl);
  await app.register(namedPlugin('docs', async (docs) => {
    docs.addHook('onRequest', (_request, reply, done) => {
      securityHeaders(reply, csp);
      done();
    });
    await docs.register(swaggerUi, { routePrefix: DOCS_PREFIX, uiConfig: { docExpansion: 'list', validatorUrl: null } });
  }));
  app.get('/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async () => app.swagger());
  return app;
}
