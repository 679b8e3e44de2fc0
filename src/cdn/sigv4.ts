import { createHash, createHmac } from 'node:crypto';

/**
 * AWS Signature Version 4, query-string form ("presigned URL"), as documented in the S3 API
 * reference "Authenticating Requests: Using Query Parameters". Only what presigning needs: the
 * payload is UNSIGNED-PAYLOAD, and headers the client must send (e.g. content-type) are signed.
 */
export interface PresignRequest {
  method: string;
  /** The object's URL without a query (path-style or virtual-hosted style). */
  url: string;
  region: string;
  service?: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** 1 to 604800 seconds (seven days), S3's limit. */
  expiresSeconds: number;
  /** Unix seconds; the signing time. */
  now: number;
  /** Headers the request must carry exactly, besides host (names in any case). */
  headers?: Record<string, string>;
}

const ALGORITHM = 'AWS4-HMAC-SHA256';
const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';

/** RFC 3986 encoding as SigV4 wants it: everything but A-Z a-z 0-9 - . _ ~ is %XX (upper case). */
export function uriEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** 20130524T000000Z */
export function amzDate(unixSeconds: number): string {
  return new Date(Math.floor(unixSeconds) * 1000).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

const sha256Hex = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');
const hmac = (key: Buffer | string, value: string) => createHmac('sha256', key).update(value, 'utf8').digest();

export function signingKey(secretAccessKey: string, date: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date), region), service), 'aws4_request');
}

interface Prepared {
  canonicalRequest: string;
  stringToSign: string;
  canonicalUri: string;
  canonicalQuery: string;
  origin: string;
  key: Buffer;
}

function prepare(request: PresignRequest): Prepared {
  if (!Number.isInteger(request.expiresSeconds) || request.expiresSeconds < 1 || request.expiresSeconds > 604_800) {
    throw new RangeError('expiresSeconds must be an integer from 1 to 604800');
  }
  const url = new URL(request.url);
  const service = request.service ?? 's3';
  const timestamp = amzDate(request.now);
  const date = timestamp.slice(0, 8);
  const scope = `${date}/${request.region}/${service}/aws4_request`;

  const headers = new Map<string, string>([['host', url.host]]);
  for (const [name, value] of Object.entries(request.headers ?? {})) headers.set(name.toLowerCase(), value.trim().replace(/\s+/g, ' '));
  const names = [...headers.keys()].sort();
  const signedHeaders = names.join(';');
  const canonicalHeaders = names.map((name) => `${name}:${headers.get(name)}\n`).join('');

  const query: Array<[string, string]> = [...url.searchParams.entries()];
  query.push(['X-Amz-Algorithm', ALGORITHM], ['X-Amz-Credential', `${request.accessKeyId}/${scope}`], ['X-Amz-Date', timestamp], ['X-Amz-Expires', String(request.expiresSeconds)], ['X-Amz-SignedHeaders', signedHeaders]);
  const canonicalQuery = query
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  // Each path segment encoded once (S3 does not double-encode).
  const canonicalUri = url.pathname.split('/').map((segment) => uriEncode(decodeURIComponent(segment))).join('/') || '/';

  const canonicalRequest = [request.method.toUpperCase(), canonicalUri, canonicalQuery, canonicalHeaders, signedHeaders, UNSIGNED_PAYLOAD].join('\n');
  const stringToSign = [ALGORITHM, timestamp, scope, sha256Hex(canonicalRequest)].join('\n');
  return { canonicalRequest, stringToSign, canonicalUri, canonicalQuery, origin: url.origin, key: signingKey(request.secretAccessKey, date, request.region, service) };
}

/** The canonical request and string to sign, exposed for checking against published examples. */
export function presignParts(request: PresignRequest): { canonicalRequest: string; stringToSign: string; signature: string } {
  const prepared = prepare(request);
  return { canonicalRequest: prepared.canonicalRequest, stringToSign: prepared.stringToSign, signature: hmac(prepared.key, prepared.stringToSign).toString('hex') };
}

/** The presigned URL: anyone holding it may make this one request until it expires. */
export function presignUrl(request: PresignRequest): string {
  const prepared = prepare(request);
  const signature = hmac(prepared.key, prepared.stringToSign).toString('hex');
  return `${prepared.origin}${prepared.canonicalUri}?${prepared.canonicalQuery}&X-Amz-Signature=${signature}`;
}
