import { decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { ExternalTokenVerifier } from '../accounts/authenticate.js';
import type { Caller } from '../accounts/caller.js';
import type { AppContext } from '../context.js';
import { VerifiedTokens } from '../crypto/verified-tokens.js';
import { errors } from '../errors/catalogue.js';
import { callerFor, ensureApplicationUser, findApplicationUser } from './app-users.js';
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
      const user = (await findApplicationUser(this.ctx.db.kysely, cached.applicationId, cached.claims.sub)) ?? (await ensureApplicationUser(this.ctx, cached.applicationId, cached.claims));
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
    let header: { kid?: string; alg?: string };
    try {
      header = decodeProtectedHeader(token);
    } catch {
      throw errors.unauthenticated();
    }
    for (const key of candidateKeys(registered, header)) {
      const payload = await this.verifyWith(token, issuer, key);
      if (payload) return { applicationId: registered.applicationId, issuer, kid: key.kid, claims: readIdentityClaims(payload) };
    }
    throw errors.unauthenticated('token signature does not verify with the issuer\'s registered keys');
  }

  private async verifyWith(token: string, issuer: string, key: VerificationKey): Promise<JWTPayload | null> {
    try {
      const { payload } = await jwtVerify(token, key.key, {
        algorithms: key.algorithms,
        issuer,
        // The base URL as configured; a trailing slash is the same resource, so both are accepted.
        audience: [this.ctx.config.baseUrl, `${this.ctx.config.baseUrl}/`],
        requiredClaims: ['sub', 'exp', 'iat', 'aud'],
        currentDate: new Date(this.ctx.now() * 1000),
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      });
      return payload;
    } catch (err) {
      if (err instanceof joseErrors.JWSSignatureVerificationFailed || err instanceof joseErrors.JOSEAlgNotAllowed) return null;
      if (err instanceof joseErrors.JWTExpired) throw errors.unauthenticated('authentication token expired');
      if (err instanceof joseErrors.JWTClaimValidationFailed) throw errors.unauthenticated(`authentication token claim ${err.claim} is invalid`);
      if (err instanceof joseErrors.JOSEError || err instanceof TypeError) throw errors.unauthenticated();
      throw err;
    }
  }

  private async stillRegistered(identity: VerifiedIdentity): Promise<boolean> {
    const registered = await this.issuers.lookup(identity.issuer);
    return registered?.applicationId === identity.applicationId && registered.keys.has(identity.kid);
  }
}

/** The key named by `kid`; without a kid, every key of the application that fits `alg`. */
function candidateKeys(registered: IssuerKeys, header: { kid?: string; alg?: string }): VerificationKey[] {
  const fits = (key: VerificationKey) => header.alg !== undefined && key.algorithms.includes(header.alg);
  if (header.kid !== undefined) {
    const key = registered.keys.get(header.kid);
    return key && fits(key) ? [key] : [];
  }
  return [...registered.keys.values()].filter(fits);
}
