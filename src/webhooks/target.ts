import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * One POST to a receiver, made safe to aim (issue 32 point 4): the host is resolved on every
 * attempt and every address it resolves to must be a public unicast address (no loopback,
 * private, link-local, carrier-grade NAT, unique-local, metadata or otherwise reserved address)
 * unless the operator allows them (WEBHOOK_ALLOW_PRIVATE_ADDRESSES); the connection then goes to
 * the address checked, so a second resolution cannot swap it. Redirects are not followed, the
 * whole attempt has a deadline, and no more than `maxBytes` of the answer is read.
 */

export interface TargetOptions {
  allowPrivateAddresses: boolean;
  timeoutMs: number;
  maxBytes: number;
  signal?: AbortSignal;
}

export interface AttemptOutcome {
  /** The receiver's status; null when none came. */
  status: number | null;
  latencyMs: number;
  /** The start of the answer's body (text), when one came. */
  excerpt: string | null;
  /** What went wrong when no status came (or the address was refused). */
  error: string | null;
  /** The receiver's Retry-After, in seconds from now. */
  retryAfterSeconds: number | null;
}

/** Whether `address` is a public unicast address (an IPv4-mapped IPv6 address is judged as its IPv4 address). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

/**
 * Why `url` cannot be a webhook target as written (scheme, credentials, a literal address not
 * allowed); null when it may be. A name is judged by what it resolves to, on each attempt.
 */
export function urlProblem(url: string, allowPrivateAddresses: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'url is not a URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'url must be http:// or https://';
  if (parsed.username !== '' || parsed.password !== '') return 'url must not carry credentials';
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivateAddresses && ipaddr.isValid(host) && !isPublicAddress(host)) return 'url names a loopback, private, link-local or reserved address';
  return null;
}

class Refused extends Error {}

/** The address to connect to: the literal one, or the first the name resolves to; every one checked. */
async function resolveTarget(host: string, allowPrivate: boolean): Promise<{ address: string; family: number }> {
  if (ipaddr.isValid(host)) {
    if (!allowPrivate && !isPublicAddress(host)) throw new Refused(`address ${host} is not public`);
    return { address: host, family: host.includes(':') ? 6 : 4 };
  }
  const addresses = await lookup(host, { all: true, verbatim: true });
  if (addresses.length === 0) throw new Error(`${host} resolves to no address`);
  if (!allowPrivate) {
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused) throw new Refused(`${host} resolves to ${refused.address}, which is not public`);
  }
  return addresses[0]!;
}

export function parseRetryAfter(value: string | undefined, nowMs: number): number | null {
  if (value === undefined || value.trim() === '') return null;
  if (/^\d{1,10}$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, (at - nowMs) / 1000);
}

export async function postToTarget(url: string, headers: Record<string, string>, body: string, options: TargetOptions): Promise<AttemptOutcome> {
  const started = performance.now();
  const latency = () => Math.round((performance.now() - started) * 10) / 10;
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  let target: { address: string; family: number };
  try {
    target = await resolveTarget(host, options.allowPrivateAddresses);
  } catch (err) {
    const refused = err instanceof Refused;
    return { status: null, latencyMs: latency(), excerpt: null, error: refused ? `refused: ${(err as Error).message}` : `cannot resolve ${host}`, retryAfterSeconds: null };
  }
  const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
  const client = parsed.protocol === 'https:' ? https : http;
  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<AttemptOutcome, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ ...outcome, latencyMs: latency() });
    };
    const request = client.request(
      parsed,
      {
        method: 'POST',
        lookup: pinned,
        agent: false,
        headers: { 'content-type': 'application/json', 'user-agent': 'Latchkey-Webhooks/1', 'content-length': String(Buffer.byteLength(body)), ...headers },
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const status = response.statusCode ?? null;
        const retryAfterSeconds = parseRetryAfter(response.headers['retry-after'], Date.now());
        const done = () => finish({ status, excerpt: Buffer.concat(chunks).toString('utf8').slice(0, 500), error: null, retryAfterSeconds });
        response.on('data', (chunk: Buffer) => {
          const room = options.maxBytes - size;
          if (room > 0) chunks.push(chunk.subarray(0, room));
          size += chunk.length;
          if (size >= options.maxBytes) {
            done();
            response.destroy();
          }
        });
        response.on('end', done);
        response.on('error', done);
        response.on('close', done);
      },
    );
    const deadline = setTimeout(() => request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    const onAbort = () => request.destroy(new Error('stopped'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    request.on('error', (err: NodeJS.ErrnoException) => finish({ status: null, excerpt: null, error: err.code ? `${err.code}` : err.message, retryAfterSeconds: null }));
    request.end(body);
  });
}
