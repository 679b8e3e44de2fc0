import { SignJWT, compactVerify, decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { errors } from '../errors/catalogue.js';
import type { ServiceKeys } from './service-keys.js';
import { VerifiedTokens } from './verified-tokens.js';

/** Each token kind has its own `typ`, so one can never pass for another. */
export const TOKEN_TYPES = { auth: 'at+jwt', refresh: 'refresh+jwt' } as const;
export type TokenKind = keyof typeof TOKEN_TYPES;

const KID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface AuthClaims extends JWTPayload {
  sub: string;
  sid: string;
  exp: number;
  email?: string;
  email_verified?: boolean;
  telephone?: string;
  telephone_verified?: boolean;
  name?: string;
}

export interface RefreshClaims extends JWTPayload {
  sub: string;
  sid: string;
  jti: string;
  exp: number;
}

export interface AuthTokenSubject {
  userId: string;
  sessionId: string;
  email: string | null;
  emailVerified: boolean;
  telephone: string | null;
  telephoneVerified: boolean;
  displayName: string | null;
  /** When the user last proved who they are (login or registration); a refresh keeps it. Default: now. */
  authTime?: number;
}

interface Options {
  keys: ServiceKeys;
  baseUrl: string;
  authTtlSeconds: number;
  refreshTtlSeconds: number;
  now: () => number;
}

/**
 * Issues and verifies the service's own tokens. A verified auth token is remembered until it
 * expires, so a request pays an Ed25519 verification once per token, not once per request;
 * revocation is still immediate because the caller's session is checked on every request.
 */
export class ServiceTokens {
  private readonly verified = new VerifiedTokens<AuthClaims>(50_000);
  /** Issuers not ours seen on tokens our keys signed (firstSignedByUsAs). */
  private readonly foreignIssuers = new Set<string>();

  constructor(private readonly options: Options) {}

  get issuer(): string {
    return this.options.baseUrl;
  }

  async issueAuth(subject: AuthTokenSubject): Promise<string> {
    const now = Math.floor(this.options.now());
    const claims: Record<string, unknown> = { sid: subject.sessionId, auth_time: Math.floor(subject.authTime ?? now), email_verified: subject.emailVerified };
    if (subject.email) claims.email = subject.email;
    if (subject.telephone) {
      claims.telephone = subject.telephone;
      claims.telephone_verified = subject.telephoneVerified;
    }
    if (subject.displayName) claims.name = subject.displayName;
    return this.sign('auth', subject.userId, claims, now, now + this.options.authTtlSeconds);
  }

  async issueRefresh(userId: string, sessionId: string, refreshId: string): Promise<string> {
    const now = Math.floor(this.options.now());
    return this.sign('refresh', userId, { sid: sessionId, jti: refreshId }, now, now + this.options.refreshTtlSeconds);
  }

  private async sign(kind: TokenKind, userId: string, claims: Record<string, unknown>, iat: number, exp: number): Promise<string> {
    const key = this.options.keys.signingKey();
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: TOKEN_TYPES[kind] })
      .setIssuer(this.options.baseUrl)
      // One string, not an array: the SDK reads every claim as a scalar (docs/decisions.md).
      .setAudience(this.options.baseUrl)
      .setSubject(userId)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(key.privateKey);
  }

  /**
   * True the first time a token that one of our keys signed names `issuer`, which is not ours:
   * another instance runs with another BASE_URL. Each such issuer is told once (at most 100).
   */
  async firstSignedByUsAs(token: string, issuer: string): Promise<boolean> {
    if (this.foreignIssuers.has(issuer) || this.foreignIssuers.size > 100) return false;
    try {
      const { kid } = decodeProtectedHeader(token);
      const key = typeof kid === 'string' && KID_PATTERN.test(kid) ? await this.options.keys.publicKey(kid) : null;
      if (!key) return false;
      await compactVerify(token, key, { algorithms: ['EdDSA'] });
    } catch {
      return false;
    }
    if (this.foreignIssuers.has(issuer)) return false;
    this.foreignIssuers.add(issuer);
    return true;
  }

  /** The claims of an auth token verified before and not yet expired, without any work. */
  cachedAuth(token: string): AuthClaims | null {
    return this.verified.get(token, this.options.now()) ?? null;
  }

  async verifyAuth(token: string): Promise<AuthClaims> {
    const cached = this.cachedAuth(token);
    if (cached) return cached;
    const claims = (await this.verify('auth', token)) as AuthClaims;
    if (typeof claims.sid !== 'string') throw errors.unauthenticated();
    this.verified.set(token, claims, claims.exp);
    return claims;
  }

  async verifyRefresh(token: string): Promise<RefreshClaims> {
    const claims = (await this.verify('refresh', token)) as RefreshClaims;
    if (typeof claims.sid !== 'string' || typeof claims.jti !== 'string') throw errors.unauthenticated();
    return claims;
  }

  private async verify(kind: TokenKind, token: string): Promise<JWTPayload> {
    let kid: unknown;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      throw errors.unauthenticated();
    }
    // Our kids are UUIDs: anything else (a number, an object, a NUL) is refused before any lookup.
    const key = typeof kid === 'string' && KID_PATTERN.test(kid) ? await this.options.keys.publicKey(kid) : null;
    if (!key) throw errors.unauthenticated();
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: ['EdDSA'],
        typ: TOKEN_TYPES[kind],
        issuer: this.options.baseUrl,
        audience: this.options.baseUrl,
        requiredClaims: ['sub', 'exp', 'iat'],
        currentDate: new Date(this.options.now() * 1000),
      });
      return payload;
    } catch (err) {
      // Whatever jose refuses (bad signature, claims, or a structure it cannot read) is a bad token.
      throw errors.unauthenticated(err instanceof joseErrors.JWTExpired ? 'authentication token expired' : undefined);
    }
  }
}
