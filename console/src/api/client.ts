import { ApiError, endsSession } from './errors';
import type { Session } from './types';

/**
 * The console's only door to the service: same-origin fetch with the session's bearer token,
 * refreshed before it expires; every non-2xx answer becomes an ApiError whose message a person
 * can act on. A 401 saying the session is over (`unauthenticated`) that a refresh cannot cure ends
 * it (the app returns to sign-in); other 401s are errors of what was being done.
 * Nothing happens until the app's entry makes the client and calls `resume()`.
 */

const ACCEPT = 'application/vnd.latchkey.api-v3+json, application/json';
const SESSION_KEY = 'latchkey.console.session';
/** Refresh this long before the auth token expires (at most; see secondsBeforeRefresh). */
const REFRESH_MARGIN_SECONDS = 60;

/** What the console keeps of a session: the token pair. */
export type SessionTokens = Pick<Session, 'authToken' | 'refreshToken'>;

export { ApiError, describeError, describeStatus, endsSession, plainWords } from './errors';

/** The claims of a JWT (not verified: the service does that), or null. */
export function tokenClaims(token: string): { sub?: string; exp?: number; iat?: number } | null {
  try {
    const part = token.split('.')[1] ?? '';
    return JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/'))) as { sub?: string; exp?: number; iat?: number };
  } catch {
    return null;
  }
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Seconds the token has left before it should be refreshed: a minute before it expires, or a quarter of its life when that is shorter. */
function secondsBeforeRefresh(token: string): number {
  const claims = tokenClaims(token);
  if (claims?.exp === undefined) return Number.POSITIVE_INFINITY;
  const margin = claims.iat === undefined ? REFRESH_MARGIN_SECONDS : Math.min(REFRESH_MARGIN_SECONDS, (claims.exp - claims.iat) / 4);
  return claims.exp - margin - nowSeconds();
}

export interface RequestOptions {
  body?: unknown;
  /** A body sent as it is (the execute endpoint takes the bare JWT). */
  raw?: string;
  contentType?: string;
  /** false for the routes that need no session (sign-in, registration, email verification). */
  auth?: boolean;
  signal?: AbortSignal;
}

type Listener = (session: SessionTokens | null) => void;

export interface ApiClient {
  /** Calls the API; resolves with the JSON body (undefined for 204), rejects with ApiError. */
  request<T>(method: string, path: string, options?: RequestOptions): Promise<T>;
  /** The raw response of an authenticated request (the event stream), refreshed and re-tried like request(). */
  openAuthenticated(path: string, accept: string, signal: AbortSignal, lastEventId?: string): Promise<Response>;
  session(): SessionTokens | null;
  /** The signed-in user's id (the token's subject), or null. */
  userId(): string | null;
  setSession(next: SessionTokens | null): void;
  onSessionChange(listener: Listener): () => void;
  /** The service's time in Unix seconds (GET /time, read once and again when `resync`): what signed operations are dated by. */
  serviceNow(resync?: boolean): Promise<number>;
  /** Takes up the session `storage` kept from an earlier visit, and schedules its refresh. */
  resume(): void;
}

export function createApiClient(storage: Storage): ApiClient {
  const listeners = new Set<Listener>();
  let session: SessionTokens | null = null;
  let refreshing: Promise<boolean> | null = null;
  let refreshTimer: ReturnType<typeof setTimeout> | undefined;

  const setSession = (next: SessionTokens | null): void => {
    session = next;
    if (next) storage.setItem(SESSION_KEY, JSON.stringify(next));
    else storage.removeItem(SESSION_KEY);
    scheduleRefresh();
    for (const listener of listeners) listener(next);
  };

  function scheduleRefresh(): void {
    clearTimeout(refreshTimer);
    if (!session?.refreshToken) return;
    const wait = Math.max(0, secondsBeforeRefresh(session.authToken));
    if (!Number.isFinite(wait)) return;
    refreshTimer = setTimeout(() => void refresh(), Math.min(wait * 1000, 2 ** 31 - 1));
  }

  /** Exchanges the refresh token for a new pair; false when that is impossible (the session ends). */
  function refresh(): Promise<boolean> {
    const held = session;
    if (!held?.refreshToken) return Promise.resolve(false);
    refreshing ??= fetch('/auth/token/refresh', { method: 'POST', headers: { accept: ACCEPT, authorization: `Bearer ${held.refreshToken}` } })
      .then(async (response) => {
        if (!response.ok) return false;
        const body = (await response.json()) as SessionTokens;
        setSession({ authToken: body.authToken, refreshToken: body.refreshToken ?? held.refreshToken });
        return true;
      })
      .catch(() => false)
      .finally(() => {
        refreshing = null;
      });
    return refreshing;
  }

  /** Milliseconds the service's clock is ahead of this device's (GET /time, halfway through the round trip). */
  let clockOffset: Promise<number> | null = null;
  const measureClockOffset = async (): Promise<number> => {
    const sent = Date.now();
    const response = await fetch('/time', { headers: { accept: ACCEPT } });
    const received = Date.now();
    if (!response.ok) throw await failure(response);
    const { now } = (await response.json()) as { now: number };
    return now - (sent + received) / 2;
  };

  const refreshIfDue = async () => {
    if (session && secondsBeforeRefresh(session.authToken) <= 0) await refresh();
  };

  async function send(method: string, path: string, options: RequestOptions): Promise<Response> {
    const headers: Record<string, string> = { accept: ACCEPT };
    if (options.auth !== false && session) headers.authorization = `Bearer ${session.authToken}`;
    let body: string | undefined;
    if (options.raw !== undefined) {
      body = options.raw;
      headers['content-type'] = options.contentType ?? 'application/json;charset=UTF-8';
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    try {
      return await fetch(path, { method, headers, body, signal: options.signal });
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      throw new ApiError(0, 'the service cannot be reached; check your connection');
    }
  }

  return {
    async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
      const authed = options.auth !== false;
      if (authed) await refreshIfDue();
      let response = await send(method, path, options);
      if (authed && session && endsSession(response.status, await errorCode(response))) {
        if (await refresh()) response = await send(method, path, options);
        if (endsSession(response.status, await errorCode(response))) setSession(null);
      }
      if (!response.ok) throw await failure(response);
      if (response.status === 204) return undefined as T;
      const text = await response.text();
      return (text ? JSON.parse(text) : undefined) as T;
    },
    async openAuthenticated(path, accept, signal, lastEventId) {
      await refreshIfDue();
      const open = () => fetch(path, { headers: { accept, authorization: `Bearer ${session?.authToken ?? ''}`, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) }, signal });
      let response = await open();
      if (endsSession(response.status, await errorCode(response)) && (await refresh())) response = await open();
      if (endsSession(response.status, await errorCode(response))) setSession(null);
      return response;
    },
    serviceNow(resync = false) {
      if (resync || clockOffset === null) {
        const measuring = measureClockOffset();
        // A failed reading is not kept: the next signing asks again (meanwhile this device's clock is used).
        clockOffset = measuring.catch(() => {
          clockOffset = null;
          return 0;
        });
      }
      return clockOffset.then((offset) => (Date.now() + offset) / 1000);
    },
    session: () => session,
    userId: () => (session ? (tokenClaims(session.authToken)?.sub ?? null) : null),
    setSession,
    onSessionChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    resume() {
      try {
        const raw = storage.getItem(SESSION_KEY);
        session = raw ? (JSON.parse(raw) as SessionTokens) : null;
      } catch {
        session = null;
      }
      scheduleRefresh();
    },
  };
}

interface ErrorBody {
  message?: string;
  error?: string;
  code?: string | number;
}

/** The error body of a non-2xx answer (read from a clone: the answer stays readable), or {}. */
async function errorBody(response: Response): Promise<ErrorBody> {
  if (response.ok) return {};
  try {
    return (await response.clone().json()) as ErrorBody;
  } catch {
    return {};
  }
}

/** The service's machine code of an error answer (`error`), when it gave one. */
const errorCode = async (response: Response) => (await errorBody(response)).error;

async function failure(response: Response): Promise<ApiError> {
  const body = await errorBody(response);
  return new ApiError(response.status, body.message ?? body.error, body.code === undefined ? undefined : String(body.code), body.error);
}
