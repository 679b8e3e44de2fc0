import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { createHash, type KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { lruCache } from '../cache/lru.js';
import { errors, isAppError } from '../errors/catalogue.js';
import { decodeBase64Any } from './base64.js';
import {
  DEVICE_OU, OID, certificatePublicKey, hasKeyUsage, isCertificateAuthority, isSignedBy, parseCertificate, type ParsedCertificate,
} from './certificate.js';

/**
 * Verification of an `x5c` certificate chain against our root CA (decisions §3, §4), used by the
 * execute endpoint and by locks. Results are remembered per trust anchor (see TrustAnchor): the
 * issuers above the leaf are the same for every user, and a user's chain repeats on every unlock
 * for the 30 days its leaf lives. A new leaf under known issuers costs one parse and one
 * signature check; a repeated chain costs a hash. Dates are checked on every call.
 *
 * Certificates are read and signatures checked by @peculiar/x509 (certificate.ts); the rules
 * below (order, names, CA flags, key usages, path lengths, critical extensions, the leaf's user
 * and key) are ours, applied to what the library read.
 */

/** Most certificates accepted in an x5c (leaf, intermediates, root). */
export const MAX_CHAIN_LENGTH = 5;
const MAX_CERTIFICATE_BYTES = 8192;
/** Extensions this verifier understands; any other marked critical makes a certificate unusable. */
const UNDERSTOOD_CRITICAL = new Set<string>([OID.basicConstraints, OID.keyUsage, OID.extKeyUsage]);

/** What a valid chain proves: the user the leaf names and the Ed25519 key it certifies. */
export interface VerifiedLeaf {
  userId: string;
  publicKey: KeyObject;
  /** Unix seconds after which the leaf is no longer valid. */
  notAfter: number;
}

type Span = { notBefore: number; notAfter: number };

interface VerifiedIssuers {
  /** The certificate whose key must have signed the leaf and whose name the leaf's issuer field must carry. */
  issuer: ParsedCertificate;
  issuerKeyType: string | undefined;
  /** Validity of every certificate above the leaf, root included. */
  validity: Span[];
}

/** A whole chain that verified: only the dates remain to be checked at each use. */
interface VerifiedChain {
  leaf: VerifiedLeaf;
  validity: Span[];
}

/**
 * A parsed trusted root with its caches, keyed by SHA-256 of the DER bytes: verified issuer paths
 * (few: only our intermediates chain to our root) and whole verified chains (one per user key in
 * use). Signature and constraint checks do not depend on time, so a cached result is as good as
 * a fresh one; dates are checked at every use. Build once, reuse.
 */
export interface TrustAnchor {
  readonly kind: 'trust-anchor';
  readonly root: ParsedCertificate;
  readonly rootKeyType: string | undefined;
  readonly issuers: LRUCache<string, VerifiedIssuers>;
  readonly chains: LRUCache<string, VerifiedChain>;
  /** Frozen x5c arrays already decoded (the execute path shares one per token header). */
  readonly decoded: WeakMap<object, DecodedChain>;
}

/** An x5c decoded against an anchor: the leaf, the issuers above it, and their cache keys. */
interface DecodedChain {
  leafDer: Buffer;
  issuerDers: Buffer[];
  issuersKey: string;
  chainKey: string;
}

/** The root to trust: a TrustAnchor, DER bytes, Base64 DER, or a parsed certificate object exposing its DER. */
export type TrustedRoot = TrustAnchor | string | Uint8Array | { rawData: ArrayBuffer } | { raw: Uint8Array };

const fail = (reason: string) => errors.badSignature(reason);

/**
 * Guards the `now` every check here takes: NaN would pass every date comparison, and
 * milliseconds (a Date.now() passed by mistake) would make every certificate look expired.
 */
export function assertUnixSeconds(now: number): void {
  if (typeof now !== 'number' || !Number.isFinite(now) || now < 0 || now > 1e11) throw new TypeError('now must be Unix seconds');
}

function rejectUnknownCritical(cert: ParsedCertificate): void {
  if (cert.criticalExtensions.some((oid) => !UNDERSTOOD_CRITICAL.has(oid))) throw fail('certificate has an unsupported critical extension');
}

function checkValidity(span: Span, now: number): void {
  if (now < span.notBefore) throw fail('certificate not yet valid');
  if (now > span.notAfter) throw fail('certificate expired');
}

/**
 * Builds a TrustAnchor from the root certificate. Throws a plain Error (a configuration fault,
 * not the caller's) when the root cannot be parsed or is not a CA.
 */
export function createTrustAnchor(root: Exclude<TrustedRoot, TrustAnchor>, options: { chainCacheSize?: number } = {}): TrustAnchor {
  const parsed = parseCertificate(rootDer(root));
  if (!isCertificateAuthority(parsed)) throw new Error('trusted root is not a CA certificate with keyCertSign');
  return {
    kind: 'trust-anchor',
    root: parsed,
    rootKeyType: certificatePublicKey(parsed).asymmetricKeyType,
    issuers: new LRUCache({ max: 64 }),
    chains: lruCache(options.chainCacheSize ?? 10_000),
    decoded: new WeakMap(),
  };
}

function rootDer(root: Exclude<TrustedRoot, TrustAnchor>): Buffer {
  if (typeof root === 'string') {
    const der = decodeBase64Any(root.replace(/\s+/g, ''));
    if (der === null) throw new Error('trusted root is not Base64 DER');
    return der;
  }
  if (root instanceof Uint8Array) return Buffer.from(root);
  if ('rawData' in root) return Buffer.from(root.rawData);
  return Buffer.from(root.raw);
}

function isTrustAnchor(root: TrustedRoot): root is TrustAnchor {
  return typeof root === 'object' && 'kind' in root && root.kind === 'trust-anchor';
}

// Anchors built for callers that pass the root itself, so that they share caches. Created on
// first use, bounded, keyed by the root's bytes.
let sharedAnchors: LRUCache<string, TrustAnchor> | undefined;

function anchorFor(root: TrustedRoot): TrustAnchor {
  if (isTrustAnchor(root)) return root;
  const key = rootDer(root).toString('base64');
  sharedAnchors ??= new LRUCache({ max: 8 });
  let anchor = sharedAnchors.get(key);
  if (anchor === undefined) {
    anchor = createTrustAnchor(Buffer.from(key, 'base64'));
    sharedAnchors.set(key, anchor);
  }
  return anchor;
}

function decodeChain(x5c: unknown): Buffer[] {
  if (!Array.isArray(x5c) || x5c.length === 0 || x5c.length > MAX_CHAIN_LENGTH) throw fail('x5c must be a certificate chain');
  return x5c.map((entry: unknown) => {
    const der = typeof entry === 'string' && entry.length <= (MAX_CERTIFICATE_BYTES * 4) / 3 + 4 ? decodeBase64Any(entry) : null;
    if (der === null || der.length === 0) throw fail('x5c must hold Base64 DER certificates');
    return der;
  });
}

/** Decodes `x5c` (leaf first, the root dropped when included); remembered for a frozen array, which cannot change. */
function decodedChain(anchor: TrustAnchor, x5c: unknown): DecodedChain {
  const frozen = Array.isArray(x5c) && Object.isFrozen(x5c);
  const known = frozen ? anchor.decoded.get(x5c) : undefined;
  if (known !== undefined) return known;
  const ders = decodeChain(x5c);
  if (ders[ders.length - 1]!.equals(anchor.root.der)) ders.pop();
  const [leafDer, ...issuerDers] = ders;
  if (leafDer === undefined) throw fail('certificate chain has no leaf');
  const issuersKey = digest(issuerDers);
  const decoded = { leafDer, issuerDers, issuersKey, chainKey: digest([leafDer], issuersKey) };
  if (frozen) anchor.decoded.set(x5c, decoded);
  return decoded;
}

function digest(ders: readonly Buffer[], prefix = ''): string {
  const hash = createHash('sha256').update(prefix);
  for (const der of ders) hash.update(`${der.length}:`).update(der);
  return hash.digest('base64url');
}

/** Verifies the certificates above the leaf, from the root down; remembers the result. */
async function verifyIssuers(anchor: TrustAnchor, issuerDers: readonly Buffer[], cacheKey: string): Promise<VerifiedIssuers> {
  const cached = anchor.issuers.get(cacheKey);
  if (cached !== undefined) return cached;
  const rootLimit = anchor.root.basicConstraints?.pathLength ?? Infinity;
  let issuer = { cert: anchor.root, keyType: anchor.rootKeyType, remainingCas: rootLimit };
  const validity = [{ notBefore: anchor.root.notBefore, notAfter: anchor.root.notAfter }];
  for (const der of [...issuerDers].reverse()) {
    if (der.equals(anchor.root.der)) throw fail('root certificate out of place in chain');
    const cert = parseCertificate(der);
    if (!cert.issuer.equals(issuer.cert.subject) || !(await isSignedBy(cert, issuer.cert, issuer.keyType))) {
      throw fail('certificate chain does not lead to the trusted root');
    }
    if (!isCertificateAuthority(cert)) throw fail('issuer certificate is not a CA');
    if (issuer.remainingCas <= 0) throw fail('certificate chain exceeds path length');
    rejectUnknownCritical(cert);
    const pathLength = cert.basicConstraints?.pathLength ?? Infinity;
    issuer = { cert, keyType: certificatePublicKey(cert).asymmetricKeyType, remainingCas: Math.min(issuer.remainingCas - 1, pathLength) };
    validity.push({ notBefore: cert.notBefore, notAfter: cert.notAfter });
  }
  const verified = { issuer: issuer.cert, issuerKeyType: issuer.keyType, validity };
  anchor.issuers.set(cacheKey, verified);
  return verified;
}

/** The user id the leaf's subject names: its CN, and its UID when present must agree. A lock's certificate names no user. */
function subjectUserId(leaf: ParsedCertificate): string {
  if (leaf.subjectAttributes.some((a) => a.oid === OID.organizationalUnit && a.value === DEVICE_OU)) throw fail("leaf certificate is a lock's, not a user's");
  const names = leaf.subjectAttributes.filter((a) => a.oid === OID.commonName).map((a) => a.value);
  const uids = leaf.subjectAttributes.filter((a) => a.oid === OID.userId).map((a) => a.value);
  const [userId] = names;
  if (names.length !== 1 || userId === undefined || userId === '' || uids.length > 1 || (uids.length === 1 && uids[0] !== userId)) {
    throw fail('leaf certificate does not name one user');
  }
  return userId;
}

/** Everything about the leaf except its dates. */
async function verifyLeaf(leaf: ParsedCertificate, issuers: VerifiedIssuers): Promise<VerifiedLeaf> {
  if (!leaf.issuer.equals(issuers.issuer.subject) || !(await isSignedBy(leaf, issuers.issuer, issuers.issuerKeyType))) {
    throw fail('certificate chain does not lead to the trusted root');
  }
  rejectUnknownCritical(leaf);
  if (leaf.basicConstraints?.ca === true) throw fail('leaf certificate is a CA');
  if (!hasKeyUsage(leaf, x509.KeyUsageFlags.digitalSignature)) throw fail('leaf certificate is not for digital signatures');
  const purposes = leaf.extendedKeyUsages;
  if (purposes !== null && !purposes.includes(OID.clientAuth) && !purposes.includes(OID.anyExtendedKeyUsage)) {
    throw fail('leaf certificate is not for client authentication');
  }
  const publicKey = certificatePublicKey(leaf);
  if (publicKey.asymmetricKeyType !== 'ed25519') throw fail('leaf certificate key is not Ed25519');
  return { userId: subjectUserId(leaf), publicKey, notAfter: leaf.notAfter };
}

/**
 * Verifies an x5c chain (leaf first, Base64 DER, either alphabet; the root itself may or may not
 * be included) at `now` (Unix seconds): every signature up to `trustedRoot`, every certificate's
 * dates, CA:TRUE and keyCertSign on every issuer, path length limits, no unknown critical
 * extension, and a leaf that is not a CA, is for digitalSignature, names one user and holds an
 * Ed25519 key. Any failure throws `errors.badSignature(reason)` (401).
 */
export async function verifyCertificateChain(x5c: unknown, trustedRoot: TrustedRoot, now: number): Promise<VerifiedLeaf> {
  assertUnixSeconds(now);
  const anchor = anchorFor(trustedRoot);
  const { leafDer, issuerDers, issuersKey, chainKey } = decodedChain(anchor, x5c);
  try {
    let chain = anchor.chains.get(chainKey);
    if (chain === undefined) {
      const issuers = await verifyIssuers(anchor, issuerDers, issuersKey);
      const leaf = parseCertificate(leafDer);
      chain = { leaf: await verifyLeaf(leaf, issuers), validity: [leaf, ...issuers.validity].map(({ notBefore, notAfter }) => ({ notBefore, notAfter })) };
      anchor.chains.set(chainKey, chain);
    }
    for (const span of chain.validity) checkValidity(span, now);
    return { ...chain.leaf };
  } catch (error) {
    if (isAppError(error)) throw error;
    // A certificate or an extension that cannot be read: refuse, whatever the detail.
    throw fail('malformed certificate in chain');
  }
}
