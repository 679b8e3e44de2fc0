import { AppError } from './app-error.js';

/**
 * Every error the API can answer, in one place. Each entry builds a fresh AppError so that a
 * caller can add detail to the message where it helps (never internals).
 */
export const errors = {
  badRequest: (message = 'malformed request') => new AppError(400, 'bad_request', message),
  validation: (message: string) => new AppError(400, 'validation_failed', message),
  unauthenticated: (message = 'authentication token invalid') => new AppError(401, 'unauthenticated', message),
  /** GET /metrics without its token (METRICS_TOKEN). */
  metricsTokenRequired: () => new AppError(401, 'unauthenticated', 'metrics token required', { headers: { 'www-authenticate': 'Bearer' } }),
  badCredentials: () => new AppError(401, 'bad_credentials', 'email or password is incorrect'),
  badSignature: (message = 'signature invalid') => new AppError(401, 'bad_signature', message),
  tokenExpired: (message = 'token expired') => new AppError(401, 'token_expired', message),
  tokenNotYetValid: (message = 'token not yet valid') => new AppError(401, 'token_not_yet_valid', message),
  /** A wrong or spent certificate code (decisions §3: 401): not the session's end, so its own machine code. */
  verificationFailed: (message: string) => new AppError(401, 'verification_failed', message),
  forbidden: (message = 'caller lacks permission') => new AppError(403, 'forbidden', message),
  wrongPassword: () => new AppError(403, 'wrong_password', 'old password is incorrect'),
  signInRequired: () => new AppError(403, 'sign_in_required', 'sign in as the account this address was registered with to accept its invitations'),
  notFound: (what = 'resource') => new AppError(404, 'not_found', `${what} not found`),
  methodNotAllowed: () => new AppError(405, 'method_not_allowed', 'method not allowed for the resource'),
  notAcceptable: () => new AppError(406, 'not_acceptable', 'requested format is not JSON'),
  conflict: (message = 'conflict') => new AppError(409, 'conflict', message),
  jtiReused: () => new AppError(409, 'jti_reused', 'jti already used', { code: 409.1 }),
  pendingInvite: () => new AppError(409, 'pending_invite', 'a pending invite exists for this email; register with force=true to discard it', { code: 409.2 }),
  emailTaken: () => new AppError(409, 'email_taken', 'an account with this email already exists', { code: 409.3 }),
  lastAdmin: () => new AppError(409, 'last_admin', 'the last admin cannot leave while other users remain', { code: 409.4 }),
  lastApplicationOwner: () =>
    new AppError(409, 'last_application_owner', 'the last owner of an application cannot delete their account: add another owner or delete the application first', { code: 409.6 }),
  tileLinkedElsewhere: () => new AppError(409, 'tile_linked_elsewhere', 'the tile is linked to another lock; unlink it there first', { code: 409.5 }),
  gone: (message = 'resource removed') => new AppError(410, 'gone', message),
  /** decisions §1: an out-of-bounds input, the body included, is a 400. */
  payloadTooLarge: () => new AppError(400, 'payload_too_large', 'request body too large'),
  unsupportedMediaType: () => new AppError(415, 'unsupported_media_type', 'unsupported content type'),
  locked: (message = 'resource cannot be updated until an unlock operation is performed') => new AppError(423, 'locked', message),
  secondaryCheckRequired: () => new AppError(423, 'verification_required', 'a secondary authentication check is required', { code: 423.1 }),
  tooEarly: (message = 'resource unavailable until a pending operation completes') => new AppError(425, 'too_early', message),
  tooManyStreams: () =>
    new AppError(429, 'too_many_streams', 'too many event streams open for this user: close one first', { headers: { 'retry-after': '15' } }),
  tooManyRequests: (retryAfterSeconds: number) =>
    new AppError(429, 'too_many_requests', 'too many requests', { headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) } }),
  /** Another 4xx Fastify decided on before any route ran (its own message, which names no internals). */
  clientError: (status: number, message: string) => new AppError(status, 'bad_request', message),
  internal: () => new AppError(500, 'internal', 'internal server error'),
  /** Only with the declared-status check on (tests): a route answered a status its schema does not declare. */
  undeclaredStatus: () => new AppError(500, 'undeclared_status', 'the route answered a status it does not declare'),
  lockRefused: (reason: string) => new AppError(409, 'lock_refused', `the lock refused the operation: ${reason}`),
  lockOffline: () => new AppError(503, 'lock_offline', 'lock offline'),
  shuttingDown: () => new AppError(503, 'shutting_down', 'the service is shutting down; try again', { headers: { connection: 'close', 'retry-after': '1' } }),
  /** A dependency shared between instances (Redis) is unreachable and this route needs it; it comes back by itself. */
  sharedStateUnavailable: () => new AppError(503, 'shared_state_unavailable', 'temporarily unavailable; try again shortly', { headers: { 'retry-after': '5' } }),
  lockTimeout: () => new AppError(504, 'lock_timeout', 'the lock did not respond in time'),
} as const;

export { AppError, isAppError } from './app-error.js';
