import type { FastifyContextConfig, FastifyRequest, onRequestHookHandler } from 'fastify';
import { accountRoutes } from './accounts/routes/account.js';
import { authRoutes } from './accounts/routes/auth.js';
import { authenticate, bearerToken, heldCaller } from './accounts/authenticate.js';
import { createApplicationsPlatform, type ApplicationsPlatform } from './applications/platform.js';
import { platformRoutes } from './applications/routes.js';
import { auditRoutes } from './audit/routes.js';
import { cdnRoutes } from './cdn/routes.js';
import { certificateRoutes } from './certificates/routes.js';
import { logoOrigins } from './cdn/origins.js';
import { consoleRoutes } from './console/routes.js';
import type { AppContext } from './context.js';
import type { AuthClaims } from './crypto/service-tokens.js';
import { isAppError } from './errors/catalogue.js';
import { directoryRoutes } from './directory/routes.js';
import { eventRoutes } from './events/routes.js';
import { addRouteHook, type HttpApp } from './http/app.js';
import { addressKey } from './limits/address-key.js';
import { brokerAuthRoutes } from './lock-link/auth-hook.js';
import { lockRoutes } from './locks/routes.js';
import { sharingRoutes } from './sharing/routes.js';
import { siteRoutes } from './sites/routes.js';
import { systemRoutes } from './system/routes.js';
import { tileRoutes } from './tiles/routes.js';
import { probeRoutes } from './system/probes.js';
import { observeHttp, serveMetrics } from './metrics/serve.js';
import { operationRoutes } from './operations/routes.js';

/** Counts one request of `key`: undefined when it was counted at once (in this process), else the count under way. */
function countRequest(ctx: AppContext, key: string): Promise<void> | undefined {
  const limit = ctx.limits.requestsPerCaller;
  return limit.consumeHere(key) ? undefined : limit.consume(key);
}

/**
 * Sets `request.caller` from its Bearer token and counts the request. The common case, a token
 * verified before whose session is held in memory, is decided at once (undefined); anything else
 * answers with the promise of the rest.
 */
function identifyCaller(ctx: AppContext, applications: ApplicationsPlatform, request: FastifyRequest): Promise<void> | undefined {
  const token = bearerToken(request);
  const known = ctx.tokens.cachedAuth(token);
  const held = heldCaller(ctx, known);
  if (held === undefined) return identifyCallerSlowly(ctx, applications, request, token, known);
  request.caller = held;
  return countRequest(ctx, held.userId);
}

async function identifyCallerSlowly(ctx: AppContext, applications: ApplicationsPlatform, request: FastifyRequest, token: string, known: AuthClaims | null): Promise<void> {
  // A token not verified before costs a signature check (and maybe an issuer query): count it
  // against the IP first, so a flood of junk tokens is limited like any anonymous request.
  if (!known && !applications.tokens.isKnown(token)) await ctx.limits.requestsPerCaller.consume(`ip:${addressKey(request.ip)}`);
  request.caller = await authenticate(ctx, applications.tokens, token, known);
  await ctx.limits.requestsPerCaller.consume(request.caller.userId);
}

/**
 * `auth: 'optional'`: the caller when the request names one, else anonymous (counted by IP). A
 * token that does not verify counts as none: the route decides what an anonymous call may do.
 */
function identifyOptionalCaller(ctx: AppContext, applications: ApplicationsPlatform, request: FastifyRequest): Promise<void> | undefined {
  const anonymous = (err: unknown): Promise<void> | undefined => {
    if (!isAppError(err) || err.status !== 401) throw err;
    return countRequest(ctx, `ip:${addressKey(request.ip)}`);
  };
  if (request.headers.authorization === undefined) return countRequest(ctx, `ip:${addressKey(request.ip)}`);
  try {
    return identifyCaller(ctx, applications, request)?.catch(anonymous);
  } catch (err) {
    return anonymous(err);
  }
}

/**
 * A callback hook running `admit`: what can be decided from memory (the common case: undefined)
 * goes on without a promise.
 */
function admissionHook(admit: (request: FastifyRequest) => Promise<void> | undefined): onRequestHookHandler {
  return (request, _reply, done) => {
    let rest: Promise<void> | undefined;
    try {
      rest = admit(request);
    } catch (err) {
      return done(err as Error);
    }
    if (rest === undefined) return done();
    rest.then(() => done(), done);
  };
}

/**
 * Registers every feature's routes inside one scope whose hook authenticates each request
 * unless the route says `auth: 'none'` (secure by default).
 */
export async function registerRoutes(app: HttpApp, ctx: AppContext, applications: ApplicationsPlatform = createApplicationsPlatform(ctx)): Promise<void> {
  observeHttp(app, ctx.metrics);
  await app.register(probeRoutes(ctx));
  const metricsListener = await serveMetrics(app, { metrics: ctx.metrics, config: ctx.config.metrics, host: ctx.config.host, logger: ctx.logger });
  if (metricsListener) ctx.closers.push(() => new Promise<void>((resolve) => metricsListener.close(() => resolve())));
  await app.register(async (api) => {
    api.decorateRequest('caller', undefined as never);
    // Each route gets the hook its `auth` calls for, decided once when the route is declared.
    api.addHook('onRoute', (route) => {
      const auth = (route.config as FastifyContextConfig | undefined)?.auth ?? 'user';
      const admit =
        auth === 'user'
          ? (request: FastifyRequest) => identifyCaller(ctx, applications, request)
          : auth === 'optional'
            ? (request: FastifyRequest) => identifyOptionalCaller(ctx, applications, request)
            : (request: FastifyRequest) => countRequest(ctx, `ip:${addressKey(request.ip)}`);
      addRouteHook(route, admissionHook(admit));
    });
    await api.register(systemRoutes(ctx));
    await api.register(authRoutes(ctx));
    await api.register(accountRoutes(ctx));
    await api.register(platformRoutes(ctx, applications));
    await api.register(directoryRoutes(ctx, applications.tokens));
    await api.register(cdnRoutes(ctx, applications.embedded, applications.exists));
    await api.register(auditRoutes(ctx));
    await api.register(eventRoutes(ctx, applications.tokens));
    await api.register(lockRoutes(ctx));
    await api.register(sharingRoutes(ctx));
    await api.register(siteRoutes(ctx));
    await api.register(tileRoutes(ctx));
    await api.register(certificateRoutes(ctx));
    await api.register(operationRoutes(ctx));
    await api.register(brokerAuthRoutes(ctx));
  });
  // The web console's files, outside the API scope: no caller to identify, no request counted.
  await app.register(consoleRoutes({ origins: logoOrigins(ctx.config) }));
}
