import type { FastifyContextConfig, FastifyPluginAsync, FastifyRequest, onRequestHookHandler } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import type { AppContext } from '../context.js';
import type { AuthClaims } from '../crypto/service-tokens.js';
import { isAppError } from '../errors/catalogue.js';
import { addRouteHook } from '../http/app.js';
import { declareErrorStatuses } from '../http/schemas.js';
import { addressKey } from '../limits/address-key.js';
import { authenticate, bearerToken, heldCaller, type ExternalTokenVerifier } from './authenticate.js';
import type { Caller } from './caller.js';

/** Third-party tokens (the applications feature's): verified by their issuer; `isKnown` when verified before. */
export interface ExternalTokens extends ExternalTokenVerifier {
  isKnown(token: string): boolean;
}

/** Counts one request of `key`: undefined when it was counted at once (in this process), else the count under way. */
function countRequest(ctx: AppContext, key: string): Promise<void> | undefined {
  const limit = ctx.limits.requestsPerCaller;
  return limit.consumeHere(key) ? undefined : limit.consume(key);
}

const countAddress = (ctx: AppContext, request: FastifyRequest) => countRequest(ctx, `ip:${addressKey(request.ip)}`);

/**
 * Sets `request.caller` from its Bearer token and counts the request. The common case, a token
 * verified before whose session is held in memory, is decided at once (undefined); anything else
 * answers with the promise of the rest.
 */
function identifyCaller(ctx: AppContext, external: ExternalTokens, request: FastifyRequest): Promise<void> | undefined {
  const token = bearerToken(request);
  const known = ctx.tokens.cachedAuth(token);
  const held = heldCaller(ctx, known);
  if (held === undefined) return identifyCallerSlowly(ctx, external, request, token, known);
  request.caller = held;
  return countRequest(ctx, held.userId);
}

async function identifyCallerSlowly(ctx: AppContext, external: ExternalTokens, request: FastifyRequest, token: string, known: AuthClaims | null): Promise<void> {
  // A token not verified before costs a signature check (and maybe an issuer query): count it
  // against the IP first, so a flood of junk tokens is limited like any anonymous request.
  if (!known && !external.isKnown(token)) await ctx.limits.requestsPerCaller.consume(`ip:${addressKey(request.ip)}`);
  request.caller = await authenticate(ctx, external, token, known);
  await ctx.limits.requestsPerCaller.consume(request.caller.userId);
}

/**
 * `auth: 'optional'`: the caller when the request names one, else anonymous (counted by IP). A
 * token that does not verify counts as none: the route decides what an anonymous call may do.
 */
function identifyOptionalCaller(ctx: AppContext, external: ExternalTokens, request: FastifyRequest): Promise<void> | undefined {
  const anonymous = (err: unknown): Promise<void> | undefined => {
    if (!isAppError(err) || err.status !== 401) throw err;
    return countAddress(ctx, request);
  };
  if (request.headers.authorization === undefined) return countAddress(ctx, request);
  try {
    return identifyCaller(ctx, external, request)?.catch(anonymous);
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

/** The admission a route's `auth` calls for, decided once when the route is declared. */
function admissionOf(ctx: AppContext, external: ExternalTokens, auth: NonNullable<FastifyContextConfig['auth']>): (request: FastifyRequest) => Promise<void> | undefined {
  if (auth === 'user') return (request) => identifyCaller(ctx, external, request);
  if (auth === 'optional') return (request) => identifyOptionalCaller(ctx, external, request);
  return (request) => countAddress(ctx, request);
}

/**
 * Authentication and the per-caller request count, for every route declared after it in the scope
 * it is registered in (it does not open a scope of its own): `request.caller` is set from the
 * Bearer token unless the route says `auth: 'none'` or `'refresh'` (secure by default), and each
 * request is counted against its caller, or its address when anonymous, so every such route
 * declares the limit's 429.
 */
export function authenticationPlugin(ctx: AppContext, external: ExternalTokens): FastifyPluginAsync {
  return fastifyPlugin(
    async (app) => {
      app.decorateRequest('caller', undefined as unknown as Caller);
      app.addHook('onRoute', (route) => {
        const auth = (route.config as FastifyContextConfig | undefined)?.auth ?? 'user';
        addRouteHook(route, admissionHook(admissionOf(ctx, external, auth)));
        // Every request here is counted (its caller's, or its address's): any may be refused 429.
        declareErrorStatuses(route, 429);
      });
    },
    { name: 'latchkey-authentication', fastify: '5.x' },
  );
}
