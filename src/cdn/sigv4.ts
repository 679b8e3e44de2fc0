import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';

/**
 * Presigned S3 URLs (AWS Signature Version 4, query-string form), signed by the AWS SDK's own
 * signer. The payload is UNSIGNED-PAYLOAD; headers the client must send (e.g. content-type) are
 * signed; a session token (temporary credentials) is carried, signed, as X-Amz-Security-Token.
 */
export interface PresignRequest {
  method: string;
  /** The object's URL without a query (path-style or virtual-hosted style). */
  url: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Given with temporary credentials (STS, instance roles). */
  sessionToken?: string;
  /** 1 to 604800 seconds (seven days), S3's limit. */
  expiresSeconds: number;
  /** Unix seconds; the signing time. */
  now: number;
  /** Headers the request must carry exactly, besides host (names in any case). */
  headers?: Record<string, string>;
}

const CONTENT_SHA256 = 'x-amz-content-sha256';
// Read by the signer as the payload hash, neither hoisted into the query nor signed as a header.
const PAYLOAD_ONLY = new Set([CONTENT_SHA256]);

/** RFC 3986 encoding as SigV4 wants it: everything but A-Z a-z 0-9 - . _ ~ is %XX (upper case). */
function uriEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The presigned URL: anyone holding it may make this one request until it expires. */
export async function presignUrl(request: PresignRequest): Promise<string> {
  if (!Number.isInteger(request.expiresSeconds) || request.expiresSeconds < 1 || request.expiresSeconds > 604_800) {
    throw new RangeError('expiresSeconds must be an integer from 1 to 604800');
  }
  const url = new URL(request.url);
  // Each path segment encoded once (S3 does not double-encode), so the signer is told not to.
  const path = url.pathname.split('/').map((segment) => uriEncode(decodeURIComponent(segment))).join('/') || '/';
  const headers: Record<string, string> = { host: url.host, [CONTENT_SHA256]: 'UNSIGNED-PAYLOAD' };
  for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
  const { accessKeyId, secretAccessKey, sessionToken } = request;
  const signer = new SignatureV4({
    credentials: { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) },
    region: request.region,
    service: 's3',
    sha256: Hash.bind(null, 'sha256'),
    uriEscapePath: false,
    applyChecksum: false,
  });
  const signed = await signer.presign(
    { method: request.method.toUpperCase(), protocol: url.protocol, hostname: url.hostname, port: url.port ? Number(url.port) : undefined, path, headers, query: Object.fromEntries(url.searchParams) },
    { expiresIn: request.expiresSeconds, signingDate: new Date(Math.floor(request.now) * 1000), unhoistableHeaders: PAYLOAD_ONLY, unsignableHeaders: PAYLOAD_ONLY },
  );
  const query = Object.entries(signed.query ?? {})
    .map(([name, value]) => `${uriEncode(name)}=${uriEncode(String(value))}`)
    .join('&');
  return `${url.origin}${path}?${query}`;
}
