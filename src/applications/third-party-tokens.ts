import { decodeProtectedHeader, errors as joseErrors, jwtVerify, UnsecuredJWT, type JWTPayload } from 'jose';
import type { ExternalTokenVerifier } from '../accounts/authenticate.js';
import type { Caller } from '../accounts/caller.js';
import type { AppContext } from '../context.js';
import { decodeCompactJws, verifyCompactSignature } from '../crypto/compact-jws.js';
import { VerifiedTokens } from '../crypto/verified-tokens.js';
import { errors } from '../errors/catalogue.js';
import { callerFor, ensureApplicationUser, findApplicationUserFor } from './app-users.js';
import type { IssuerKeyCache, IssuerKeys, VerificationKey } from './issuer-keys.js';
import { readIdentityClaims, type IdentityClaims } from './token-claims.js';

/** A third-party token whose signature, issuer, audience and claims have been checked. */
export interface VerifiedIdentity {
  applicationId: string;
  issuer: string;
  kid: string;
  claims: IdentityClaims;
}

/** Small allowance for clock drift between the third party and us. */
const CLOCK_TOLERANCE_SECONDS = 5;

/**
 * Verifies tokens that applications issue to their users (decisions §6): `iss` must be a
 * registered issuer, and the signature must verify with a key of THAT application only, chosen by
 * `kid`, with an algorithm fitting the key. A verified token is remembered until it expires; each
 * use still checks that its key is registered, so removing a key takes effect at once here.
 */
export class ThirdPartyTokens implements ExternalTokenVerifier {
  private readonly verified = new VerifiedTokens<VerifiedIdentity>(50_000);

  constructor(
    private readonly ctx: AppContext,
    private readonly issuers: IssuerKeyCache,
  ) {}

  async authenticate(token: string, issuer: string): Promise<Caller> {
    const cached = this.verified.get(token, this.ctx.now());
    if (cached && (await this.stillRegistered(cached))) {
      const user = (await findApplicationUserFor(this.ctx.db.kysely, cached.applicationId, cached.claims)) ?? (await ensureApplicationUser(this.ctx, cached.applicationId, cached.claims));
      return callerFor(user, cached.applicationId);
    }
    const identity = await this.verify(token, issuer);
    const user = await ensureApplicationUser(this.ctx, identity.applicationId, identity.claims);
    this.verified.set(token, identity, identity.claims.exp);
    return callerFor(user, identity.applicationId);
  }

  /** Whether `token` was verified before and is still remembered (no work, no query). */
  isKnown(token: string): boolean {
    return this.verified.get(token, this.ctx.now()) !== undefined;
  }

  /** Forgets verified tokens (after a key or application is removed). */
  forget(): void {
    this.verified.clear();
  }

  /** Verifies a token of the third-party form; throws 401. `issuer` is the token's unverified `iss`. */
  async verify(token: string, issuer: string): Promise<VerifiedIdentity> {
    const registered = await this.issuers.lookup(issuer);
    if (!registered) throw errors.unauthenticated('token issuer is not registered');
    // jose checks Base64URL tokens of the algorithms and curves it knows; the rest (standard Base64
    // segments, ES256K, any key on secp256k1) are checked in src/crypto/compact-jws.ts.
    const decoded = BASE64URL_JWS.test(token) ? null : decodeCompactJws(token);
    let header: { kid?: unknown; alg?: unknown; crit?: unknown };
    try {
      header = decoded ? decoded.header : decodeProtectedHeader(token);
    } catch {
      throw errors.unauthenticated();
    }
    if (decoded === null && !BASE64URL_JWS.test(token)) throw errors.unauthenticated();
    for (const key of candidateKeys(registered, header)) {
      const own = decoded ?? (header.alg === 'ES256K' || onSecp256k1(key) ? decodeCompactJws(token) : null);
      const payload = own ? this.verifyOwn(own, issuer, key) : await this.verifyWith(token, issuer, key);
      if (payload) return { applicationId: registered.applicationId, issuer, kid: key.kid, claims: this.issuedAlready(readIdentityClaims(payload)) };
    }
    throw errors.unauthenticated('token signature does not verify with the issuer\'s registered keys');
  }

  /**
   * 401 for a token issued in the future (beyond the drift allowance): `iat` is what a deleted
   * user's tombstone is compared with, so a token dated ahead would outlive the deletion.
   */
  private issuedAlready(claims: IdentityClaims): IdentityClaims {
    if (claims.iat > this.ctx.now() + CLOCK_TOLERANCE_SECONDS) throw errors.unauthenticated('authentication token claim iat is invalid');
    return claims;
  }

  private claimChecks(issuer: string) {
    return {
      issuer,
      // The base URL as configured; a trailing slash is the same resource, so both are accepted.
      audience: [this.ctx.config.baseUrl, `${this.ctx.config.baseUrl}/`],
      requiredClaims: ['sub', 'exp', 'iat', 'aud'],
      currentDate: new Date(this.ctx.now() * 1000),
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    };
  }

  private async verifyWith(token: string, issuer: string, key: VerificationKey): Promise<JWTPayload | null> {
    try {
      const { payload } = await jwtVerify(token, key.key, { algorithms: key.algorithms, ...this.claimChecks(issuer) });
      return payload;
    } catch (err) {
      return this.refusal(err);
    }
  }

  /**
   * The signature checked here, then the claims by jose exactly as jwtVerify judges them (an
   * unsecured JWT of the same payload bytes carries them to jose's claim checks).
   */
  private verifyOwn(decoded: NonNullable<ReturnType<typeof decodeCompactJws>>, issuer: string, key: VerificationKey): JWTPayload | null {
    if (decoded.header.crit !== undefined || !key.algorithms.includes(decoded.header.alg as string)) return null;
    if (!verifyCompactSignature(decoded, key.key)) return null;
    try {
      return UnsecuredJWT.decode(`${UNSECURED_HEADER}.${decoded.payloadBytes.toString('base64url')}.`, this.claimChecks(issuer)).payload;
    } catch (err) {
      return this.refusal(err);
    }
  }

  /** null for a signature that does not verify with this key (another may); 401 for the rest. */
  private refusal(err: unknown): null {
    if (err instanceof joseErrors.JWSSignatureVerificationFailed || err instanceof joseErrors.JOSEAlgNotAllowed) return null;
    if (err instanceof joseErrors.JWTExpired) throw errors.unauthenticated('authentication token expired');
    if (err instanceof joseErrors.JWTClaimValidationFailed) throw errors.unauthenticated(`authentication token claim ${err.claim} is invalid`);
    if (err instanceof joseErrors.JOSEError || err instanceof TypeError) throw errors.unauthenticated();
    throw err;
  }

  private async stillRegistered(identity: VerifiedIdentity): Promise<boolean> {
    const registered = await this.issuers.lookup(identity.issuer);
    return registered?.applicationId === identity.applicationId && registered.keys.has(identity.kid);
  }
}

const BASE64URL_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const UNSECURED_HEADER = Buffer.from('{"alg":"none"}').toString('base64url');

function onSecp256k1(key: VerificationKey): boolean {
  return key.key.asymmetricKeyDetails?.namedCurve === 'secp256k1';
}

/** The key named by `kid`; without a kid, every key of the application that fits `alg`. */
function candidateKeys(registered: IssuerKeys, header: { kid?: unknown; alg?: unknown }): VerificationKey[] {
  const fits = (key: VerificationKey) => typeof header.alg === 'string' && key.algorithms.includes(header.alg);
  if (header.kid !== undefined) {
    if (typeof header.kid !== 'string') return [];
    const key = registered.keys.get(header.kid);
    return key && fits(key) ? [key] : [];
  }
  return [...registered.keys.values()].filter(fits);
}
