import assert from 'node:assert/strict';
import { randomUUID, sign, type KeyObject } from 'node:crypto';
import type { Api, ApiResponse } from './http.js';

/**
 * Requests as the official Kotlin Multiplatform SDK (doordeck/doordeck-headless-sdk) puts them on
 * the wire, and checks of responses against its models. What the SDK does, from its sources:
 * - kotlinx.serialization with `encodeDefaults = true` and explicit nulls: every unset optional
 *   member is sent as `null`, members in declaration order, compact JSON;
 * - a body typed as a sealed interface carries a first member `"type"` holding the class's name;
 * - `Content-Type: application/json`; Accept is `application/json`, preceded by
 *   `application/vnd.doordeck.api-vN+json` when the call asks for a version;
 * - responses: unknown members ignored, but a missing required member or a null in a non-nullable
 *   one fails the whole call.
 */

export const SDK_MODEL_PACKAGE = 'com.doordeck.multiplatform.sdk.model.requests';

/** The Accept header of an SDK call, with or without an API version. */
export function sdkAccept(version?: number): string {
  return version === undefined ? 'application/json' : `application/vnd.doordeck.api-v${version}+json, application/json`;
}

/** A value of a sealed request type: `"type"` (the class name) first, then its members. */
export function sealed<T extends object>(className: string, members: T): { type: string } & T {
  return { type: `${SDK_MODEL_PACKAGE}.${className}`, ...members };
}

export interface SdkRequestOptions {
  token?: string;
  /** The body object, written exactly as given (nulls included) in compact JSON. */
  body?: unknown;
  version?: number;
  /** `addRequestHeaders()` without a body (refresh, logout): `Content-Type: application/json` and an empty body. */
  jsonHeaderOnly?: boolean;
  /** `addRequestHeaders(signedRequest = true)`: this compact token as the body, `Content-Type: application/jwt`. */
  jwt?: string;
  /** The SDK's User-Agent (`installUserAgent`), e.g. `KMP SDK JVM - v1.2.3`; `Ktor client` when not given. */
  userAgent?: string;
  /** Headers a proxy in front of the service adds (X-Forwarded-For), never the SDK's own. */
  proxyHeaders?: Record<string, string>;
}

/** Sends one request with the SDK's headers and body encoding. */
export function sdkRequest<T = any>(api: Api, method: string, path: string, options: SdkRequestOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { accept: sdkAccept(options.version), 'user-agent': options.userAgent ?? 'Ktor client', ...options.proxyHeaders };
  return api.request<T>(method, path, {
    token: options.token,
    headers,
    ...(options.jwt !== undefined ? { rawBody: options.jwt, contentType: 'application/jwt' } : {}),
    ...(options.body !== undefined ? { rawBody: JSON.stringify(options.body), contentType: 'application/json' } : {}),
    ...(options.body === undefined && options.jsonHeaderOnly ? { rawBody: '', contentType: 'application/json' } : {}),
  });
}

/** Standard Base64 with padding, as the SDK encodes keys and signatures. */
export function sdkBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}

/** Who signs an SDK operation: the user, their Ed25519 private key and its certificate chain. */
export interface SdkOperationSigner {
  userId: string;
  key: { privateKey: KeyObject };
  certificateChain: string[];
}

/**
 * A signed operation exactly as LockOperationsClient.performOperation writes it: the header
 * `{"alg":"EdDSA","x5c":[…],"typ":"JWT"}` and the body `{"iss","sub","nbf","iat","exp","jti",
 * "operation"}` in that order, compact JSON, each segment and the Ed25519 signature over
 * `header.body` in standard Base64 with padding. `operation` is the JSON text of the operation
 * request as the SDK serialises it (`"type"` first, every unset member `null`), signed as given.
 */
export function sdkOperationToken(signer: SdkOperationSigner, lockId: string, operation: string, times: { now: number; exp?: number; jti?: string }): string {
  const header = JSON.stringify({ alg: 'EdDSA', x5c: signer.certificateChain, typ: 'JWT' });
  const claims = `{"iss":${JSON.stringify(signer.userId)},"sub":${JSON.stringify(lockId)},"nbf":${times.now},"iat":${times.now},"exp":${times.exp ?? times.now + 60},"jti":${JSON.stringify(times.jti ?? randomUUID())},"operation":${operation}}`;
  const input = `${sdkBase64(Buffer.from(header))}.${sdkBase64(Buffer.from(claims))}`;
  return `${input}.${sdkBase64(sign(null, Buffer.from(input), signer.key.privateKey))}`;
}

/** ShareLockOperationRequest as the SDK writes it, alone (ADD_USER) or in BATCH_ADD_USER's `users`: nulls for what is unset. */
export function sdkShareJson(share: { user: string; publicKey: string; role?: 'ADMIN' | 'USER'; start?: number; end?: number }): string {
  return `{"user":${JSON.stringify(share.user)},"publicKey":${JSON.stringify(share.publicKey)},"role":${JSON.stringify(share.role ?? null)},"start":${share.start ?? null},"end":${share.end ?? null}}`;
}

/** POST /device/{id}/execute as the SDK sends it (`addRequestHeaders(true)`). */
export function sdkExecute(api: Api, authToken: string, lockId: string, compact: string, options: Pick<SdkRequestOptions, 'userAgent' | 'proxyHeaders'> = {}): Promise<ApiResponse> {
  return sdkRequest(api, 'POST', `/device/${lockId}/execute`, { token: authToken, jwt: compact, ...options });
}

/**
 * A Kotlin model as the SDK declares it: member → type. `String`, `Boolean`, `Int`, `Long`,
 * `Double`, `List<String>`, or a nested model; a trailing `?` (or `{ nullable: model }`) marks a
 * member declared `T? = null`, which may be absent or null.
 */
export type ModelType = string | Model | { list: ModelType } | { nullable: ModelType };
export interface Model {
  [member: string]: ModelType;
}

const SCALARS: Record<string, (v: unknown) => boolean> = {
  String: (v) => typeof v === 'string',
  Boolean: (v) => typeof v === 'boolean',
  Int: (v) => Number.isInteger(v) && Math.abs(v as number) <= 2 ** 31,
  Long: (v) => Number.isInteger(v),
  Double: (v) => typeof v === 'number',
};

function checkValue(value: unknown, type: ModelType, where: string): void {
  if (typeof type === 'string') {
    if (type.endsWith('?')) {
      if (value !== null && value !== undefined) checkValue(value, type.slice(0, -1), where);
      return;
    }
    assert.notEqual(value, undefined, `${where}: required by the SDK's model, missing`);
    assert.notEqual(value, null, `${where}: non-nullable in the SDK's model, null`);
    const list = /^List<(.+)>$/.exec(type);
    if (list) {
      assert.ok(Array.isArray(value), `${where}: expected a list`);
      (value as unknown[]).forEach((item, i) => checkValue(item, list[1]!, `${where}[${i}]`));
      return;
    }
    const check = SCALARS[type];
    assert.ok(check, `unknown model type ${type}`);
    assert.ok(check(value), `${where}: expected ${type}, got ${JSON.stringify(value)}`);
    return;
  }
  if ('nullable' in type && Object.keys(type).length === 1) {
    if (value !== null && value !== undefined) checkValue(value, type.nullable as ModelType, where);
    return;
  }
  assert.notEqual(value, undefined, `${where}: required by the SDK's model, missing`);
  assert.notEqual(value, null, `${where}: non-nullable in the SDK's model, null`);
  if ('list' in type && Object.keys(type).length === 1) {
    assert.ok(Array.isArray(value), `${where}: expected a list`);
    (value as unknown[]).forEach((item, i) => checkValue(item, type.list as ModelType, `${where}[${i}]`));
    return;
  }
  assert.ok(typeof value === 'object' && !Array.isArray(value), `${where}: expected an object`);
  for (const [member, memberType] of Object.entries(type as Model)) checkValue((value as Record<string, unknown>)[member], memberType, `${where}.${member}`);
}

/** Asserts that `value` decodes into the SDK's model (extra members are fine: the SDK ignores them). */
export function assertSdkModel(value: unknown, model: ModelType, name = 'response'): void {
  checkValue(value, model, name);
}

/** Models of the SDK's responses (model/responses/*.kt) used by the tests. */
export const SDK_MODELS = {
  BasicTokenResponse: { authToken: 'String', refreshToken: 'String' },
  BasicUserDetailsResponse: { email: 'String', displayName: 'String?', emailVerified: 'Boolean', publicKey: 'String' },
  BasicRegisterEphemeralKeyResponse: { certificateChain: 'List<String>', userId: 'String' },
  BasicUserPublicKeyResponse: { id: 'String', publicKey: 'String' },
  BasicBatchUserPublicKeyResponse: { id: 'String', email: 'String?', foreignKey: 'String?', phone: 'String?', publicKey: 'String' },
} satisfies Record<string, Model>;

/** The SDK's TwoFactorMethod enum: any other value fails the call. */
export const SDK_TWO_FACTOR_METHODS = ['EMAIL', 'TELEPHONE', 'SMS'] as const;

/** MUTATE_LOCK as the SDK's LockOperationRequest serialises it (`locked` its only member). */
export const sdkLockOperation = (locked: boolean): string => `{"type":"MUTATE_LOCK","locked":${locked}}`;

/**
 * One of LocalUnlockClient's requests: the signed unlock POSTed to a lock's directAccessEndpoint
 * exactly as to the service (`addRequestHeaders(true)`: `Content-Type: application/jwt`, the
 * compact token as the body), through the SDK's plain HttpClient (content negotiation: Accept
 * `application/json`); any 2xx counts as done.
 */
export async function sdkLocalUnlock(endpoint: string, compact: string, userAgent = 'KMP SDK JVM - v2.0.0'): Promise<{ status: number; body: any }> {
  const res = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/jwt', accept: 'application/json', 'user-agent': userAgent }, body: compact });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}
