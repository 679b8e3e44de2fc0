/**
 * The service's errors as the console reads them (pure: no DOM, no imports, so Node's tests load it
 * as it is): which 401s end a session, and every error as a sentence a person can act on.
 */

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
