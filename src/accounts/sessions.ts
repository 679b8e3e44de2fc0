import type { AppContext } from '../context.js';
import { newId } from '../crypto/random.js';
import type { Executor } from '../db/transaction.js';
import { inTransaction } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import type { Caller } from './caller.js';
import { accountWriter } from './live-sessions.js';
import { findSession, findUserById, insertSession, revokeSession, rotateRefreshId, type UserRow } from './queries.js';

export interface TokenPair {
  authToken: string;
  refreshToken: string;
}

/** Opens a session for `user` on `db` (inside the caller's transaction). */
export async function openSession(ctx: AppContext, db: Executor, userId: string): Promise<{ sessionId: string; refreshId: string; authTime: number }> {
  const now = ctx.now();
  const session = { id: newId(), user_id: userId, created: now, expires_at: now + ctx.config.tokens.refreshTtlSeconds, revoked_at: null, refresh_id: newId() };
  await insertSession(db, session);
  // The session's start is the authentication time, so a refresh (which reads it back) names the same second.
  return { sessionId: session.id, refreshId: session.refresh_id, authTime: now };
}

export async function issueTokenPair(ctx: AppContext, user: UserRow, session: { sessionId: string; refreshId: string; authTime?: number }): Promise<TokenPair> {
  const [authToken, refreshToken] = await Promise.all([
    ctx.tokens.issueAuth({
      userId: user.id,
      sessionId: session.sessionId,
      email: user.email,
      emailVerified: user.email_verified === 1,
      telephone: user.telephone,
      telephoneVerified: user.telephone_verified === 1,
      displayName: user.display_name,
      ...(session.authTime === undefined ? {} : { authTime: session.authTime }),
    }),
    ctx.tokens.issueRefresh(user.id, session.sessionId, session.refreshId),
  ]);
  return { authToken, refreshToken };
}

/**
 * Exchanges a refresh token for a new pair. Each refresh token works once: presenting one that
 * was already exchanged means it leaked, so the whole session is revoked (reuse detection).
 */
export async function refreshSession(ctx: AppContext, refreshToken: string): Promise<TokenPair> {
  const claims = await ctx.tokens.verifyRefresh(refreshToken);
  const nextRefreshId = newId();
  const outcome = await inTransaction(ctx.db, ctx.logger, async (uow) => {
    const { db } = uow;
    const session = await findSession(db, claims.sid);
    const now = ctx.now();
    if (!session || session.user_id !== claims.sub || session.revoked_at !== null || session.expires_at <= now) return { kind: 'invalid' as const };
    const rotated = await rotateRefreshId(db, session.id, claims.jti, nextRefreshId, now + ctx.config.tokens.refreshTtlSeconds);
    if (!rotated) {
      await revokeSession(accountWriter(ctx, uow), { sessionId: session.id, userId: session.user_id }, now);
      return { kind: 'reused' as const };
    }
    const user = await findUserById(db, session.user_id);
    return user ? { kind: 'ok' as const, user, authTime: session.created } : { kind: 'invalid' as const };
  });
  if (outcome.kind === 'reused') {
    ctx.logger.warn({ sessionId: claims.sid, userId: claims.sub }, 'refresh token reused: session revoked');
    throw errors.unauthenticated('refresh token already used; session revoked');
  }
  if (outcome.kind === 'invalid') throw errors.unauthenticated();
  return issueTokenPair(ctx, outcome.user, { sessionId: claims.sid, refreshId: nextRefreshId, authTime: outcome.authTime });
}

export async function endSession(ctx: AppContext, caller: Pick<Caller, 'sessionId' | 'userId'>): Promise<void> {
  if (caller.sessionId) await revokeSession(accountWriter(ctx), { sessionId: caller.sessionId, userId: caller.userId }, ctx.now());
}
