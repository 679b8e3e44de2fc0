import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errors, isAppError, type AppError } from '../errors/catalogue.js';
import { decodeOperationToken, extractCompactJws, MAX_EXECUTE_BODY_BYTES } from '../operations/body.js';
import type { LocalOutcome, LockLog } from './lock-endpoint.js';

/**
 * Unlock on the LAN (protocol 1.3): the HTTP endpoint a lock (the simulator, or the bridge for
 * every lock it drives) serves on its own network, taking exactly what the official SDK's
 * LocalUnlockClient sends to each of a lock's `settings.directAccessEndpoints` at the same time
 * as to the service: `POST <endpoint>` with the signed operation as the body
 * (`Content-Type: application/jwt`), success being any 2xx. Paths `/device/execute` (the
 * address Doordeck's documentation shows) and `/device/{lockId}/execute`; the lock is the token's
 * `sub` (and must be the path's, when named). Answers as the service's execute does: 200 `{}`,
 * or an error body `{code, message, error}` with the service's status for the same fault.
 */

export const LAN_EXECUTE_PATH = '/device/execute';

/** A lock the server takes requests for. */
export interface LanLock {
  readonly id: string;
  executeLocal(token: string): Promise<LocalOutcome>;
}

export interface LanServerOptions {
  /** Interface to listen on (default all). */
  host?: string;
  /** 0: any free port. */
  port: number;
  /** The lock a token names (its `sub`, lower case), if served here. */
  lockFor(lockId: string): LanLock | undefined;
  log: LockLog;
}

export interface LanServer {
  readonly port: number;
  close(): Promise<void>;
}

const PATH = /^\/device(?:\/([0-9a-fA-F-]{36}))?\/execute\/?$/;

/** The service's answer to the same fault: the lock's refusal code read back into the error catalogue. */
export function refusalError(error: string): AppError {
  const code = /^([a-z_]+)/.exec(error)?.[1] ?? '';
  const detail = error.includes(': ') ? error.slice(error.indexOf(': ') + 2) : error;
  switch (code) {
    case 'bad_request': return errors.badRequest(detail);
    case 'bad_signature': return errors.badSignature(detail);
    case 'token_expired': return errors.tokenExpired(detail);
    case 'token_not_yet_valid': return errors.tokenNotYetValid(detail);
    case 'replayed': return errors.jtiReused();
    case 'not_enrolled':
    case 'outside_user_window':
    case 'outside_user_schedule':
    case 'duration_not_allowed': return errors.forbidden(detail);
    case 'deadline_passed': return errors.lockTimeout();
    default: return errors.lockRefused(error.slice(0, 200));
  }
}

function send(res: ServerResponse, status: number, body: object): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}

function sendError(res: ServerResponse, err: AppError): void {
  send(res, err.status, { code: err.code, message: err.message, error: err.error });
}

/** The body, at most one byte past the limit (enough to tell it is too large). */
async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_EXECUTE_BODY_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The lock id the token names (`sub`), lower case; throws the service's 400/401 for a token that cannot be read. */
function subjectOf(compact: string): string {
  const sub = decodeOperationToken(compact).payload.sub;
  if (typeof sub !== 'string' || sub.length === 0 || sub.length > 64) throw errors.badRequest('sub must name the lock');
  return sub.toLowerCase();
}

async function handle(req: IncomingMessage, res: ServerResponse, options: LanServerOptions): Promise<void> {
  const path = PATH.exec((req.url ?? '').split('?')[0] ?? '');
  if (path === null) return sendError(res, errors.notFound('resource'));
  if (req.method !== 'POST') {
    res.setHeader('allow', 'POST');
    return sendError(res, errors.methodNotAllowed());
  }
  const body = await readBody(req);
  if (body === null) return sendError(res, errors.payloadTooLarge());
  const compact = extractCompactJws(body, req.headers['content-type']);
  const lockId = subjectOf(compact);
  const named = path[1]?.toLowerCase();
  const lock = named !== undefined && named !== lockId ? undefined : options.lockFor(lockId);
  if (lock === undefined) return sendError(res, errors.notFound('lock'));
  const outcome = await lock.executeLocal(compact);
  if (outcome.ok) return send(res, 200, {});
  return sendError(res, refusalError(outcome.error));
}

/** Starts listening; resolves once it does (with the port, when 0 was asked for). */
export async function startLanServer(options: LanServerOptions): Promise<LanServer> {
  const server: Server = createServer((req, res) => {
    handle(req, res, options).catch((err: unknown) => {
      if (isAppError(err)) return sendError(res, err);
      options.log('lan_error', { message: err instanceof Error ? err.message : String(err) });
      if (!res.headersSent) sendError(res, errors.internal());
      else res.destroy();
    });
  });
  // A LAN request is small and quick: slow or idle clients are not kept.
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  options.log('lan_listening', { host: options.host ?? '(all)', port });
  return {
    port,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

/** The URL a lock announces for its LAN endpoint: `http://HOST:PORT/device/execute`. */
export function lanEndpointUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}${LAN_EXECUTE_PATH}`;
}
