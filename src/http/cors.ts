import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
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
 * @fastify/cors's hook, taken from the plugin instead of added to `app`, so that a request
 * without an Origin (nearly every one: apps, scripts, locks' owners) does not pay for it: the
 * plugin builds its options and reads the route's options twice on every request, Origin or not
 * (the hottest function of our own stack in a GET /account profile, docs/decisions.md,
 * Performance). Everything else the plugin registers goes to `app` as it would.
 */
async function corsHook(app: HttpApp, options: FastifyCorsOptions): Promise<onRequestHookHandler> {
  const hooks: Array<{ name: string; hook: onRequestHookHandler }> = [];
  const host = {
    decorateRequest: (...args: unknown[]): unknown => Reflect.apply(app.decorateRequest, app, args),
    options: (...args: unknown[]): unknown => Reflect.apply(app.options, app, args),
    addHook: (name: string, hook: onRequestHookHandler): void => void hooks.push({ name, hook }),
  };
  const plugin = cors as unknown as (instance: typeof host, opts: FastifyCorsOptions, done: (err?: Error) => void) => void;
  await new Promise<void>((resolve, reject) => plugin(host, options, (err) => (err ? reject(err) : resolve())));
  // A new version of the plugin that hooks differently must not start with CORS half done.
  if (hooks.length !== 1 || hooks[0]!.name !== 'onRequest') throw new Error(`@fastify/cors added hooks we do not expect: ${hooks.map((h) => h.name).join(', ')}`);
  return hooks[0]!.hook;
}

/**
 * Registers CORS (before any other hook, so even a refused request carries the headers a browser
 * needs to read it) and its route for preflights on every path. A request without an Origin gets
 * what the plugin would give it, `Vary: Origin`, and nothing else.
 */
export async function registerCors(app: HttpApp, allows: CorsOriginCheck, open: CorsOpenPath = () => false): Promise<void> {
  const handleCors = await corsHook(app, {
    hideOptionsRoute: true,
    delegator: (request, callback) => {
      const origin = request.headers.origin!;
      if (open(request.url.split('?')[0] ?? request.url)) return callback(null, openToAnyOrigin(request));
      allows(origin).then(
        (allowed) => callback(null, allowed ? allowedOrigin(request, origin) : NO_CORS),
        (err: Error) => callback(err, NO_CORS),
      );
    },
  });
  app.addHook('onRequest', function cors(request, reply, done) {
    if (request.headers.origin !== undefined) return handleCors.call(this, request, reply, done);
    reply.header('vary', 'Origin');
    done();
  });
}
