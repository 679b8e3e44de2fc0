import { decodeJwt } from 'jose';
import { decodeCompactJws } from '../crypto/compact-jws.js';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { errors } from '../errors/catalogue.js';
import { callerFromUser, type Caller } from './caller.js';
import type { AuthClaims } from '../crypto/service-tokens.js';
import { heldSessionUser, liveSessionUser } from './live-sessions.js';
import { warnIfSignedByUs } from './foreign-issuer.js';

/** Verifies tokens of a registered third-party issuer (the applications feature provides it). */
export interface ExternalTokenVerifier {
  authenticate(token: string, issuer: string): Promise<Caller | null>;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const PREFIX = 'Bearer ';

export function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (header === undefined) throw errors.unauthenticated('authentication token missing');
  // The usual "Bearer <token>" is taken without running the pattern over the token (a hot path);
  // other whitespace it could hold only makes the token fail verification.
  if (header.length > PREFIX.length && header.startsWith(PREFIX) && header.indexOf(' ', PREFIX.length) === -1 && header.indexOf('\t', PREFIX.length) === -1) {
    return header.slice(PREFIX.length);
  }
  const match = BEARER.exec(header);
  if (!match) throw errors.unauthenticated('authentication token missing');
  return match[1]!;
}

function unverifiedIssuer(token: string): string {
  try {
    const { iss } = decodeJwt(token);
    if (typeof iss === 'string') return iss;
  } catch {
    // Segments in standard Base64, as the official SDK may sign third-party tokens (src/crypto/compact-jws.ts).
    const iss = decodeCompactJws(token)?.payload.iss;
    if (typeof iss === 'string') return iss;
  }
  throw errors.unauthenticated();
}

/**
 * The caller of a service token verified before whose session is held in memory: the common case,
 * with no waiting. Made once per held user row and session (LiveSessions.callerOf), not per request.
 */
export function heldCaller(ctx: AppContext, known: AuthClaims | null): Caller | undefined {
  const user = known ? heldSessionUser(ctx, known.sub, known.sid) : undefined;
  if (user === undefined) return undefined;
  return ctx.liveSessions!.callerOf(user, known!.sid, () => callerFromUser(user, known!.sid, null));
}

/**
 * Turns a Bearer auth token into the caller. Service tokens are checked against their live
 * session on every request (in memory when it was read before), so logout and revocation take
 * effect at once.
 */
export async function authenticate(ctx: AppContext, external: ExternalTokenVerifier | null, token: string, known = ctx.tokens.cachedAuth(token)): Promise<Caller> {
  const issuer = known ? ctx.tokens.issuer : unverifiedIssuer(token);
  if (issuer !== ctx.tokens.issuer) {
    const caller = external ? await external.authenticate(token, issuer).catch(async (err: unknown) => {
      await warnIfSignedByUs(ctx, token, issuer);
      throw err;
    }) : null;
    if (!caller) {
      await warnIfSignedByUs(ctx, token, issuer);
      throw errors.unauthenticated();
    }
    return caller;
  }
  const claims = known ?? (await ctx.tokens.verifyAuth(token));
  const user = await liveSessionUser(ctx, claims.sub, claims.sid);
  if (!user) throw errors.unauthenticated('session ended');
  return callerFromUser(user, claims.sid, null);
}
