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

export class ApiError extends Error {
  /** `error`: the service's machine code (e.g. `unauthenticated`, `verification_failed`), when it gave one. */
  constructor(readonly status: number, readonly serviceMessage: string | undefined, readonly code?: string, readonly error?: string) {
    super(describeError(status, error, serviceMessage));
    this.name = 'ApiError';
  }
}

/**
 * Whether a 401 means the session is over (its token invalid, expired or revoked): only then does
 * the console refresh or sign out. Other 401s (a wrong certificate code, a signed operation's
 * clock or signature) belong to what was being done and are shown there.
 */
export function endsSession(status: number, error: string | undefined): boolean {
  return status === 401 && (error === undefined || error === 'unauthenticated');
}

/** What a person reads for the 401s that are not a session's end, by the service's machine code. */
const NOT_SIGNED_OUT: Record<string, string> = {
  verification_failed: 'That code is not right, or it has expired. Check it, or have a new code sent.',
  token_expired: "This device's clock is far from the service's, so the lock took the request as too old. Try again; if it keeps happening, set the device's clock to automatic.",
  token_not_yet_valid: "This device's clock is ahead of the service's, so the lock took the request as coming from the future. Try again; if it keeps happening, set the device's clock to automatic.",
  bad_signature: "This browser's certificate was not accepted. Renew it under “This browser's key” and try again.",
  bad_credentials: 'The email or password is not right.',
};

/** The message for an error answer: plain words for the 401s that are not a session's end, else by status. */
export function describeError(status: number, error: string | undefined, message?: string): string {
  if (status === 401 && error !== undefined && NOT_SIGNED_OUT[error]) return NOT_SIGNED_OUT[error];
  return describeStatus(status, message === undefined ? undefined : plainWords(message));
}

/** The schema validator's wording ("body/password must NOT have fewer than 8 characters") in plain words. */
export function plainWords(message: string): string {
  return message
    .split(/;\s*|,\s*(?=(?:body|querystring|params)\/)/)
    .map((part) => (/^(?:body|querystring|params|headers)\//.test(part) ? fieldFirst(part) : part)
      .replace(/must NOT have fewer than (\d+) characters/, 'must have at least $1 characters')
      .replace(/must NOT have more than (\d+) characters/, 'must have at most $1 characters')
      .replace(/must match format "email"/, 'must be an email address')
      .replace(/must match (?:format|pattern) "[^"]*"/, 'is not in the expected form')
      .replace(/must have required property '(\w+)'/, '$1 is required')
      .trim())
    .filter((part) => part !== '')
    .join('; ');
}

/** "body/unlockDuration/0 must …" → "Unlock duration must …": the field in words, first. */
function fieldFirst(part: string): string {
  return part
    .replace(/^(?:body|querystring|params|headers)\//, '')
    .replace(/^(\w+)\/\d+\/?/, '$1 ')
    .replace(/^([a-z]\w*)/, (field: string) => field.replace(/([A-Z])/g, ' $1').toLowerCase().replace(/^./, (c) => c.toUpperCase()));
}

/** A sentence for each status the API documents, with the service's own words when it gave any. */
export function describeStatus(status: number, message?: string): string {
  const detail = message ? `: ${message}` : '';
  switch (status) {
    case 0: return 'The service cannot be reached. Check your connection and try again.';
    case 400: return `The service could not accept this${detail}`;
    case 401: return `You are not signed in, or your session has ended${detail}`;
    case 403: return `You are not allowed to do this${detail}`;
    case 404: return `Not found (it may have been removed, or you no longer have access)${detail}`;
    case 406: return `The service cannot answer in a form the console understands${detail}`;
    case 409: return `This conflicts with what already exists${detail}`;
    case 413: return `That is too large${detail}`;
    case 415: return `The service does not accept this kind of content${detail}`;
    case 423: return `A further check is needed${detail}`;
    case 429: return `Too many attempts: wait a moment and try again${detail}`;
    case 503: return `The lock is offline or the service is unavailable${detail}`;
    case 504: return `The lock did not reply in time${detail}`;
    default: return status >= 500 ? `The service failed (error ${status}). Try again in a moment${detail}` : `The service refused this${detail}`;
  }
}

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
