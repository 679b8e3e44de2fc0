import { decodeJwt } from 'jose';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { errors } from '../errors/catalogue.js';
import { callerFromUser, type Caller } from './caller.js';
import { readLiveSessionUser } from './queries.js';

/** Verifies tokens of a registered third-party issuer (the applications feature provides it). */
export interface ExternalTokenVerifier {
  authenticate(token: string, issuer: string): Promise<Caller | null>;
}

export function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match) throw errors.unauthenticated('authentication token missing');
  return match[1]!;
}

function unverifiedIssuer(token: string): string {
  try {
    const { iss } = decodeJwt(token);
    if (typeof iss === 'string') return iss;
  } catch {
    // fall through: not a JWT at all
  }
  throw errors.unauthenticated();
}

/**
 * Turns a Bearer auth token into the caller. Service tokens are checked against their live
 * session on every request, so logout and revocation take effect at once.
 */
export async function authenticate(ctx: AppContext, external: ExternalTokenVerifier | null, token: string): Promise<Caller> {
  const known = ctx.tokens.cachedAuth(token);
  const issuer = known ? ctx.tokens.issuer : unverifiedIssuer(token);
  if (issuer !== ctx.tokens.issuer) {
    const caller = external ? await external.authenticate(token, issuer) : null;
    if (!caller) throw errors.unauthenticated();
    return caller;
  }
  const claims = known ?? (await ctx.tokens.verifyAuth(token));
  const user = await readLiveSessionUser(ctx.db, claims.sid, ctx.now());
  if (!user || user.id !== claims.sub) throw errors.unauthenticated('session ended');
  return callerFromUser(user, claims.sid, null);
}
