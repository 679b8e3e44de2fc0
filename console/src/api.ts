/**
 * The console's only door to the service: same-origin fetch with the session's bearer token,
 * refreshed before it expires; every non-2xx answer becomes an ApiError whose message a person
 * can act on. A 401 that a refresh cannot cure ends the session (the app returns to sign-in).
 */

const ACCEPT = 'application/vnd.latchkey.api-v3+json, application/json';
const SESSION_KEY = 'latchkey.console.session';
/** Refresh this long before the auth token expires (at most; see secondsBeforeRefresh). */
const REFRESH_MARGIN_SECONDS = 60;

export interface Session {
  authToken: string;
  refreshToken?: string;
}

export class ApiError extends Error {
  constructor(readonly status: number, readonly serviceMessage: string | undefined, readonly code?: string) {
    super(describeStatus(status, serviceMessage));
    this.name = 'ApiError';
  }
}

/** A sentence for each status the API documents, with the service's own words when it gave any. */
export function describeStatus(status: number, message?: string): string {
  const detail = message ? `: ${message}` : '';
  switch (status) {
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
    default: return status >= 500 ? `The service failed (${status})${detail}` : `The request was refused (${status})${detail}`;
  }
}

type Listener = (session: Session | null) => void;
const listeners = new Set<Listener>();
let session: Session | null = readSession();
let refreshing: Promise<boolean> | null = null;
let refreshTimer: ReturnType<typeof setTimeout> | undefined;

function readSession(): Session | null {
  try {
    const raw = localStorage.getItem(SESSION_KEY);
    return raw ? (JSON.parse(raw) as Session) : null;
  } catch {
    return null;
  }
}

export function currentSession(): Session | null {
  return session;
}

export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function setSession(next: Session | null): void {
  session = next;
  if (next) localStorage.setItem(SESSION_KEY, JSON.stringify(next));
  else localStorage.removeItem(SESSION_KEY);
  scheduleRefresh();
  for (const listener of listeners) listener(next);
}

/** The claims of a JWT (not verified: the service does that), or null. */
export function tokenClaims(token: string): { sub?: string; exp?: number; email?: string } | null {
  try {
    const part = token.split('.')[1] ?? '';
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
    return JSON.parse(json) as { sub?: string; exp?: number };
  } catch {
    return null;
  }
}

export function currentUserId(): string | null {
  return session ? (tokenClaims(session.authToken)?.sub ?? null) : null;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Seconds the token has left before it should be refreshed: a minute before it expires, or a quarter of its life when that is shorter. */
function secondsBeforeRefresh(token: string): number {
  const claims = tokenClaims(token) as { exp?: number; iat?: number } | null;
  if (claims?.exp === undefined) return Number.POSITIVE_INFINITY;
  const margin = claims.iat === undefined ? REFRESH_MARGIN_SECONDS : Math.min(REFRESH_MARGIN_SECONDS, (claims.exp - claims.iat) / 4);
  return claims.exp - margin - nowSeconds();
}

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
      const body = (await response.json()) as Session;
      setSession({ authToken: body.authToken, refreshToken: body.refreshToken ?? held.refreshToken });
      return true;
    })
    .catch(() => false)
    .finally(() => {
      refreshing = null;
    });
  return refreshing;
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

async function failure(response: Response): Promise<ApiError> {
  let message: string | undefined;
  let code: string | undefined;
  try {
    const body = (await response.json()) as { message?: string; error?: string; code?: string | number };
    message = body.message ?? body.error;
    code = body.code === undefined ? undefined : String(body.code);
  } catch {
    message = undefined;
  }
  return new ApiError(response.status, message, code);
}

/** Ends the session on an incurable 401: the app then shows sign-in with the page to return to. */
function sessionLost(): void {
  setSession(null);
}

/** Calls the API; resolves with the JSON body (undefined for 204), rejects with ApiError. */
export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const authed = options.auth !== false;
  if (authed && session && secondsBeforeRefresh(session.authToken) <= 0) await refresh();
  let response = await send(method, path, options);
  if (response.status === 401 && authed && session) {
    if (await refresh()) response = await send(method, path, options);
    if (response.status === 401) sessionLost();
  }
  if (!response.ok) throw await failure(response);
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** The raw response of an authenticated request (the event stream), refreshed and re-tried like request(). */
export async function openAuthenticated(path: string, accept: string, signal: AbortSignal, lastEventId?: string): Promise<Response> {
  if (session && secondsBeforeRefresh(session.authToken) <= 0) await refresh();
  const open = () => fetch(path, { headers: { accept, authorization: `Bearer ${session?.authToken ?? ''}`, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) }, signal });
  let response = await open();
  if (response.status === 401 && (await refresh())) response = await open();
  if (response.status === 401) sessionLost();
  return response;
}

export const api = {
  get: <T>(path: string, options?: RequestOptions) => request<T>('GET', path, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>('POST', path, { ...options, body }),
  put: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>('PUT', path, { ...options, body }),
  delete: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>('DELETE', path, { ...options, body }),
};

export async function signIn(email: string, password: string): Promise<void> {
  const tokens = await request<Session>('POST', '/auth/token', { body: { email, password }, auth: false });
  setSession({ authToken: tokens.authToken, refreshToken: tokens.refreshToken });
}

export async function register(email: string, password: string, displayName: string): Promise<void> {
  const tokens = await request<Session>('POST', '/auth/register', { body: { email, password, ...(displayName ? { displayName } : {}) }, auth: false });
  setSession({ authToken: tokens.authToken, refreshToken: tokens.refreshToken });
}

export async function signOut(): Promise<void> {
  try {
    if (session) await request('POST', '/auth/token/destroy');
  } finally {
    setSession(null);
  }
}

scheduleRefresh();
