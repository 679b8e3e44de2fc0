import { ApiError, type ApiClient } from './client';
import { checkCertificateCode, executeSigned, requestCertificate, sendCertificateCode } from './endpoints';

/**
 * This browser's signing key: Ed25519 made by WebCrypto with a non-extractable private key, kept
 * in IndexedDB per user, certified through /auth/certificate (with the secondary check when the
 * service answers 423) and renewed before its certificate expires. Operations are signed here
 * (JWS, EdDSA, the chain in x5c) and never leave the browser unsigned.
 */

export interface BrowserKey {
  userId: string;
  privateKey: CryptoKey;
  /** Base64 of the raw 32-byte public key, as `ephemeralKey` carries it. */
  publicKeyBase64: string;
  chain?: string[];
  /** Unix seconds when the leaf certificate stops being valid. */
  notAfter?: number;
}

export type CertifyOutcome = 'certified' | 'needs-code';

/** Renew this long before the certificate expires. */
const RENEW_MARGIN_SECONDS = 10 * 60;
const DB_NAME = 'latchkey-console';
const STORE = 'keys';

function openDb(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(DB_NAME, 1);
    open.onupgradeneeded = () => open.result.createObjectStore(STORE);
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error ?? new Error('IndexedDB is unavailable'));
  });
}

async function withStore<T>(mode: IDBTransactionMode, run: (store: IDBObjectStore) => IDBRequest): Promise<T> {
  const db = await openDb();
  try {
    return await new Promise<T>((resolve, reject) => {
      const req = run(db.transaction(STORE, mode).objectStore(STORE));
      req.onsuccess = () => resolve(req.result as T);
      req.onerror = () => reject(req.error ?? new Error('IndexedDB failed'));
    });
  } finally {
    db.close();
  }
}

export const loadKey = (userId: string) => withStore<BrowserKey | undefined>('readonly', (s) => s.get(userId));
const saveKey = (key: BrowserKey) => withStore<IDBValidKey>('readwrite', (s) => s.put(key, key.userId));
export const forgetKey = (userId: string) => withStore<undefined>('readwrite', (s) => s.delete(userId));

const toBase64 = (bytes: ArrayBuffer | Uint8Array) => btoa(String.fromCharCode(...new Uint8Array(bytes)));
const toBase64Url = (bytes: ArrayBuffer | Uint8Array) => toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const textBase64Url = (text: string) => toBase64Url(new TextEncoder().encode(text));

async function makeKey(userId: string): Promise<BrowserKey> {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify'])) as CryptoKeyPair;
  const raw = await crypto.subtle.exportKey('raw', pair.publicKey);
  const key: BrowserKey = { userId, privateKey: pair.privateKey, publicKeyBase64: toBase64(raw) };
  await saveKey(key);
  return key;
}

/**
 * A visitor's key (src/sharing/visitors.ts): made before the service names the user, its public
 * half sent with the visitor's link, kept for the user the service answers with.
 */
export async function visitorKey(): Promise<{ publicKeyBase64: string; keepFor(userId: string): Promise<void> }> {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify'])) as CryptoKeyPair;
  const publicKeyBase64 = toBase64(await crypto.subtle.exportKey('raw', pair.publicKey));
  return { publicKeyBase64, keepFor: async (userId) => void (await saveKey({ userId, privateKey: pair.privateKey, publicKeyBase64 })) };
}

/** The key of `userId` in this browser, made on first use. */
export async function browserKey(userId: string): Promise<BrowserKey> {
  return (await loadKey(userId)) ?? makeKey(userId);
}

/** Whether the key holds a certificate that is good for at least the renewal margin. */
export function isCertified(key: BrowserKey | undefined, now = Date.now() / 1000): boolean {
  return !!key?.chain && (key.notAfter ?? 0) - now > RENEW_MARGIN_SECONDS;
}

/** POST /auth/certificate: the chain, or 'needs-code' when the service asks for the secondary check (423). */
export async function certify(api: ApiClient, userId: string): Promise<CertifyOutcome> {
  const key = await browserKey(userId);
  try {
    const result = await requestCertificate(api, { ephemeralKey: key.publicKeyBase64 });
    await saveKey({ ...key, chain: result.certificateChain, notAfter: leafNotAfter(result.certificateChain) });
    return 'certified';
  } catch (err) {
    if (err instanceof ApiError && err.status === 423) return 'needs-code';
    throw err;
  }
}

/** POST /auth/certificate/verify: has a code sent by `method`. */
export async function sendCode(api: ApiClient, userId: string, method: 'EMAIL' | 'SMS' | 'TELEPHONE' | 'WHATSAPP'): Promise<void> {
  const key = await browserKey(userId);
  await sendCertificateCode(api, method, { ephemeralKey: key.publicKeyBase64 });
}

/** POST /auth/certificate/check with the code signed by the key: stores the chain. */
export async function checkCode(api: ApiClient, userId: string, code: string): Promise<void> {
  const key = await browserKey(userId);
  const signature = await crypto.subtle.sign({ name: 'Ed25519' }, key.privateKey, new TextEncoder().encode(code.trim()));
  const result = await checkCertificateCode(api, { verificationSignature: toBase64(signature) });
  await saveKey({ ...key, chain: result.certificateChain, notAfter: leafNotAfter(result.certificateChain) });
}

/** The certified key, renewed when its certificate is near its end; throws when a code is needed first. */
export async function certifiedKey(api: ApiClient, userId: string): Promise<BrowserKey> {
  let key = await browserKey(userId);
  if (!isCertified(key)) {
    if ((await certify(api, userId)) === 'needs-code') throw new KeyNeedsCheck();
    key = await browserKey(userId);
  }
  return key;
}

export class KeyNeedsCheck extends Error {
  constructor() {
    super("This browser's key needs a check: open “This browser's key” and enter the code sent to you.");
    this.name = 'KeyNeedsCheck';
  }
}

export type Operation = { type: string } & Record<string, unknown>;

/** A compact JWS (EdDSA, chain in x5c) of `operation` on `lockId`, as POST /device/{id}/execute expects. */
export async function signOperation(api: ApiClient, userId: string, lockId: string, operation: Operation, lifetimeSeconds = 60): Promise<string> {
  const key = await certifiedKey(api, userId);
  // Dated by the service's clock: a phone minutes off would otherwise sign "too old" or "from the future" (401).
  const now = Math.floor(await api.serviceNow());
  const header = { alg: 'EdDSA', typ: 'JWT', x5c: key.chain };
  const payload = { iss: userId, sub: lockId, nbf: now, iat: now, exp: now + lifetimeSeconds, jti: crypto.randomUUID(), operation };
  const input = `${textBase64Url(JSON.stringify(header))}.${textBase64Url(JSON.stringify(payload))}`;
  const signature = await crypto.subtle.sign({ name: 'Ed25519' }, key.privateKey, new TextEncoder().encode(input));
  return `${input}.${toBase64Url(signature)}`;
}

/**
 * Signs `operation` once for each of `subs` (each token's `sub`) and hands the tokens to `send`;
 * signs them all once more, by the service's clock read again, when it says the time was off.
 */
export async function signEachAndSend<T>(api: ApiClient, userId: string, subs: readonly string[], operation: Operation, send: (tokens: string[]) => Promise<T>): Promise<T> {
  const signEach = () => Promise.all(subs.map((sub) => signOperation(api, userId, sub, operation)));
  try {
    return await send(await signEach());
  } catch (err) {
    // The device's clock moved since it was compared with the service's: compare again and sign once more.
    if (!(err instanceof ApiError && (err.error === 'token_expired' || err.error === 'token_not_yet_valid'))) throw err;
    await api.serviceNow(true);
    return send(await signEach());
  }
}

/** Signs `operation` (its `sub` naming `sub`) and hands it to `send`; signs once more by the service's clock when it says the time was off. */
export function signAndSend<T>(api: ApiClient, userId: string, sub: string, operation: Operation, send: (token: string) => Promise<T>): Promise<T> {
  return signEachAndSend(api, userId, [sub], operation, ([token]) => send(token!));
}

/** Signs and executes `operation`; resolves with the service's answer (the lock's confirmation). */
export function execute(api: ApiClient, userId: string, lockId: string, operation: Operation): Promise<unknown> {
  return signAndSend(api, userId, lockId, operation, (token) => executeSigned(api, lockId, token));
}

// --- the leaf certificate's notAfter, read from its DER (Certificate → tbsCertificate → validity) ---

interface Der { tag: number; start: number; end: number }

function readDer(bytes: Uint8Array, at: number): Der {
  const tag = bytes[at]!;
  let length = bytes[at + 1]!;
  let start = at + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + bytes[start + i]!;
    start += count;
  }
  return { tag, start, end: start + length };
}

function children(bytes: Uint8Array, parent: Der): Der[] {
  const out: Der[] = [];
  for (let at = parent.start; at < parent.end; ) {
    const child = readDer(bytes, at);
    out.push(child);
    at = child.end;
  }
  return out;
}

function parseTime(bytes: Uint8Array, node: Der): number {
  const text = new TextDecoder().decode(bytes.subarray(node.start, node.end));
  // UTCTime YYMMDDHHMMSSZ (tag 0x17) or GeneralizedTime YYYYMMDDHHMMSSZ (0x18).
  const full = node.tag === 0x17 ? `${Number(text.slice(0, 2)) >= 50 ? '19' : '20'}${text}` : text;
  const [y, mo, d, h, mi, s] = [full.slice(0, 4), full.slice(4, 6), full.slice(6, 8), full.slice(8, 10), full.slice(10, 12), full.slice(12, 14)].map(Number);
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!) / 1000;
}

export function leafNotAfter(chain: string[]): number {
  const pem = chain[0] ?? '';
  const b64 = pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const certificate = readDer(bytes, 0);
  const tbs = children(bytes, certificate)[0]!;
  const fields = children(bytes, tbs);
  const offset = fields[0]?.tag === 0xa0 ? 1 : 0; // [0] version is optional
  const validity = fields[offset + 3]!;
  const [, notAfter] = children(bytes, validity);
  return parseTime(bytes, notAfter!);
}
