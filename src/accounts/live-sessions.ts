import type { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { EventBus } from '../bus/event-bus.js';
import { lruCache } from '../cache/lru.js';
import type { Database } from '../db/database.js';
import type { UnitOfWork } from '../db/transaction.js';
import type { Caller, CallerUser } from './caller.js';
import { readLiveSessionUser, type AccountWriter } from './queries.js';

/** A user whose row was read, with the sessions of theirs found live and when each ends. */
interface KnownUser {
  user: CallerUser;
  sessionsUntil: Map<string, number>;
}

/**
 * The users behind live sessions, kept in memory so that an authenticated request makes no
 * query (issue 2: a request must not pay for the database any more than for a signature).
 *
 * Logout and revocation still take effect at once because every change to a user's row or
 * sessions in this process calls `forget` as soon as it has committed (see `accountWriter`).
 * A read that was under way when a change was forgotten is not kept (the generation check), so
 * a stale row cannot slip in behind the change. Several instances hear each other's changes on
 * the bus (`accounts.changed`, src/accounts/session-revocation.ts); while the bus is disconnected
 * a change could go unheard, so the cache is emptied and bypassed (`trust(false)`) until it is back.
 */
export class LiveSessions {
  private readonly users: LRUCache<string, KnownUser>;
  private generation = 0;
  private trusted = true;
  /**
   * What is made of a held user row, once rather than on every request: its callers by session
   * (frozen: every request of the session shares the object), and each caller's account as JSON.
   * A row is replaced, never changed, when the user changes, so what was made of it goes with it.
   */
  private readonly callers = new WeakMap<CallerUser, Map<string, Caller>>();
  private readonly accountJson = new WeakMap<Caller, string>();

  constructor(maxUsers = 50_000) {
    this.users = lruCache(maxUsers);
  }

  /** The user of a session known to be live until after `now`, if it was read before. */
  find(userId: string, sessionId: string, now: number): CallerUser | undefined {
    if (!this.trusted) return undefined;
    const known = this.users.get(userId);
    const until = known?.sessionsUntil.get(sessionId);
    return until !== undefined && until > now ? known!.user : undefined;
  }

  /** Call before reading a session from the database; pass the result to `keep`. */
  readStarted(): number {
    return this.generation;
  }

  /** Keeps a session read from the database, unless something changed since the read started. */
  keep(readStarted: number, sessionId: string, expiresAt: number, user: CallerUser): void {
    if (readStarted !== this.generation || !this.trusted) return;
    const known = this.users.get(user.id);
    if (known) {
      known.user = user;
      known.sessionsUntil.set(sessionId, expiresAt);
    } else {
      this.users.set(user.id, { user, sessionsUntil: new Map([[sessionId, expiresAt]]) });
    }
  }

  /**
   * Whether every change is heard now. Either way what is held is dropped: entering distrust,
   * changes may be missed from here on; leaving it, some may have been missed meanwhile.
   */
  trust(heard: boolean): void {
    this.trusted = heard;
    this.generation += 1;
    this.users.clear();
  }

  /** The caller of `user`'s session `sessionId`, made by `make` the first time. */
  callerOf(user: CallerUser, sessionId: string, make: () => Caller): Caller {
    let callers = this.callers.get(user);
    if (callers === undefined) this.callers.set(user, (callers = new Map()));
    let caller = callers.get(sessionId);
    if (caller === undefined) callers.set(sessionId, (caller = Object.freeze(make())));
    return caller;
  }

  /** The caller's account as JSON (GET /account), serialised by `serialise` the first time. */
  accountJsonOf(caller: Caller, serialise: () => string): string {
    let json = this.accountJson.get(caller);
    if (json === undefined) this.accountJson.set(caller, (json = serialise()));
    return json;
  }

  /** Drops the user and all their sessions: the next request of theirs reads the database. */
  forget(userId: string): void {
    this.generation += 1;
    this.users.delete(userId);
  }
}

/**
 * What the session functions use of the application context (named here rather than taken from
 * it: the composition root builds the cache, so this module must not import the root).
 */
interface SessionsContext {
  db: Database;
  liveSessions: LiveSessions | null;
  bus: EventBus;
  logger: Logger;
  now: () => number;
}

/**
 * Bus channel saying "this user's row or sessions changed" (`{userId}`): whatever holds something
 * on the strength of their session (an open event stream) checks it again.
 */
export const ACCOUNT_CHANGED = 'accounts.changed';

/**
 * Tells the other instances. Resolves once Redis has taken the message (it has then queued it for
 * every subscribed instance and sends it with this answer), so the request that made the change
 * answers only after that: a client told "logged out" by one instance finds the session refused by
 * the others as soon as they have read what Redis sent them, normally before the client's next
 * request reaches them, and well within issue 17's 100 ms unless an instance is starved of CPU.
 * Never rejects: an announcement that cannot be made is logged (while Redis is unreachable the
 * other instances bypass their caches anyway).
 */
function announceAccountChange(ctx: Pick<SessionsContext, 'bus' | 'logger'>, userId: string): Promise<void> {
  return ctx.bus.publish(ACCOUNT_CHANGED, { userId }).catch((err: unknown) => ctx.logger.warn({ err, userId }, 'could not announce an account change'));
}

/**
 * Where account writes run: in `uow`'s transaction, forgetting the user once it commits (the
 * after-commit hooks, announcement included, run before the transaction's caller goes on), or
 * without one (each statement commits on its own), forgetting the user right after it.
 */
export function accountWriter(ctx: Pick<SessionsContext, 'db' | 'liveSessions' | 'bus' | 'logger'>, uow?: UnitOfWork): AccountWriter {
  const forget = (userId: string) => {
    ctx.liveSessions?.forget(userId);
    return announceAccountChange(ctx, userId);
  };
  if (!uow) return { db: ctx.db.kysely, changed: forget };
  return {
    db: uow.db,
    changed: async (userId) => uow.onCommit(() => forget(userId)),
  };
}

/** The user of a live session of `userId` when it is held in memory: no query, no waiting. */
export function heldSessionUser(ctx: Pick<SessionsContext, 'liveSessions' | 'now'>, userId: string, sessionId: string): CallerUser | undefined {
  return ctx.liveSessions?.find(userId, sessionId, ctx.now());
}

/** The user behind a live session of `userId`, or undefined when it ended or belongs to someone else. */
export async function liveSessionUser(ctx: Pick<SessionsContext, 'db' | 'liveSessions' | 'now'>, userId: string, sessionId: string): Promise<CallerUser | undefined> {
  const held = heldSessionUser(ctx, userId, sessionId);
  if (held) return held;
  const cache = ctx.liveSessions;
  const readStarted = cache?.readStarted() ?? 0;
  const row = await readLiveSessionUser(ctx.db, sessionId, ctx.now());
  if (!row || row.id !== userId) return undefined;
  const { expires_at: expiresAt, ...user } = row;
  cache?.keep(readStarted, sessionId, expiresAt, user);
  return user;
}
