import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyRequest } from 'fastify';
import type { HttpApp } from './http-app.js';

/**
 * CORS for the browser origins applications registered (decisions §6), by @fastify/cors: an exact
 * scheme://host:port match gets `Access-Control-Allow-Origin`, its preflight a 204; any other
 * origin gets no CORS headers, and its preflight a 404 (not-found.ts answers every OPTIONS that
 * is not an allowed preflight). Every response varies by Origin.
 */

const ALLOW_METHODS = 'GET, HEAD, POST, PUT, DELETE';
const EXPOSE_HEADERS = 'Location, Retry-After, X-Request-Id';
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** Whether a browser origin may call the API; answers through a promise (it may read the database). */
export type CorsOriginCheck = (origin: string) => Promise<boolean>;

const NO_CORS: FastifyCorsOptions = { origin: false };

function isPreflight(request: FastifyRequest): boolean {
  return request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
}

/** The options for a request from an allowed origin; an OPTIONS that is no preflight goes on to the 404. */
function allowedOrigin(request: FastifyRequest, origin: string): FastifyCorsOptions {
  return {
    origin,
    methods: ALLOW_METHODS,
    exposedHeaders: EXPOSE_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
    preflight: isPreflight(request),
    strictPreflight: false,
  };
}

/**
 * A path any origin may call (`Access-Control-Allow-Origin: *`, no credentials): those whose URL
 * itself is the permission, such as a signed logo upload URL, which a browser on any origin may PUT
 * to (like a presigned S3 URL under a permissive bucket policy) and which no cookie or token reaches.
 */
export type CorsOpenPath = (path: string) => boolean;

function openToAnyOrigin(request: FastifyRequest): FastifyCorsOptions {
  return { origin: '*', methods: 'GET, HEAD, PUT', maxAge: PREFLIGHT_MAX_AGE_SECONDS, preflight: isPreflight(request), strictPreflight: false };
}

/**
 * Registers CORS (before any other hook, so even a refused request carries the headers a browser
 * needs to read it) and its route for preflights on every path.
 */
export async function registerCors(app: HttpApp, allows: CorsOriginCheck, open: CorsOpenPath = () => false): Promise<void> {
  await app.register(cors, {
    hideOptionsRoute: true,
    delegator: (request, callback) => {
      const origin = request.headers.origin;
      if (origin === undefined) return callback(null, NO_CORS);
      if (open(request.url.split('?')[0] ?? request.url)) return callback(null, openToAnyOrigin(request));
      allows(origin).then(
        (allowed) => callback(null, allowed ? allowedOrigin(request, origin) : NO_CORS),
        (err: Error) => callback(err, NO_CORS),
      );
    },
  });
}
