import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../errors/catalogue.js';
import type { HttpApp } from './http-app.js';

/**
 * CORS for the browser origins applications registered (decisions §6): an exact
 * scheme://host:port match gets `Access-Control-Allow-Origin`, its preflight a 204; any other
 * origin gets no CORS headers, and its preflight a 404. Every response varies by Origin.
 *
 * Our own hook rather than @fastify/cors: that plugin built its options and read the route's
 * options on every request, Origin or not, and most requests (apps, locks' owners' scripts) carry
 * none. Here a request without an Origin costs one header (docs/decisions.md, Performance).
 */

const ALLOW_METHODS = 'GET, HEAD, POST, PUT, DELETE';
const EXPOSE_HEADERS = 'Location, Retry-After, X-Request-Id';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/** Whether a browser origin may call the API; answers through a promise (it may read the database). */
export type CorsOriginCheck = (origin: string) => Promise<boolean>;

function isPreflight(request: FastifyRequest): boolean {
  return request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
}

function allowOrigin(reply: FastifyReply, origin: string): void {
  reply.header('access-control-allow-origin', origin);
  reply.header('access-control-expose-headers', EXPOSE_HEADERS);
}

function answerPreflight(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('access-control-allow-methods', ALLOW_METHODS);
  const requestedHeaders = request.headers['access-control-request-headers'];
  if (requestedHeaders !== undefined) reply.header('access-control-allow-headers', requestedHeaders);
  reply.header('vary', 'Origin, Access-Control-Request-Headers');
  reply.header('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS);
  reply.code(204).header('content-length', '0').send();
}

/**
 * Registers the CORS hook (first of all hooks, so even a refused request carries the headers a
 * browser needs to read it) and a route for preflights on every path.
 */
export function registerCors(app: HttpApp, allows: CorsOriginCheck): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('vary', 'Origin');
    const origin = request.headers.origin;
    if (origin === undefined) return done();
    allows(origin).then((allowed) => {
      if (!allowed) return done();
      allowOrigin(reply, origin);
      if (isPreflight(request)) return answerPreflight(request, reply);
      done();
    }, done);
  });
  // Reached only by preflights of other origins and OPTIONS without a preflight: not found.
  app.options('*', { schema: { hide: true } }, () => {
    throw errors.notFound();
  });
}
