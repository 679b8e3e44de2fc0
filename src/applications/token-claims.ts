import type { JWTPayload } from 'jose';
import { errors } from '../errors/catalogue.js';
import { isPlainText } from '../http/plain-text.js';

/** What a third-party auth token says about its user, once checked against the spec's claim table. */
export interface IdentityClaims {
  /** The third party's own user id (stored as the user's external id). */
  sub: string;
  exp: number;
  /** When the third party issued the token (Unix seconds, its clock). */
  iat: number;
  email: string | null;
  emailVerified: boolean;
  telephone: string | null;
  telephoneVerified: boolean;
  name: string | null;
}

export const MAX_SUB_BYTES = 1024;
const MAX_NAME_LENGTH = 255;
const MAX_URI_LENGTH = 2048;
const E164 = /^\+[1-9]\d{1,14}$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

function invalid(claim: string): never {
  throw errors.unauthenticated(`authentication token claim ${claim} is invalid`);
}

function optionalString(payload: JWTPayload, claim: string, max: number, pattern?: RegExp): string | null {
  const value = payload[claim];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > max || (pattern && !pattern.test(value))) invalid(claim);
  return value;
}

/** Some identity providers send booleans as the strings "true"/"false"; both are read. */
function optionalBoolean(payload: JWTPayload, claim: string): boolean {
  const value = payload[claim];
  if (value === undefined || value === null) return false;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  return invalid(claim);
}

function optionalNumber(payload: JWTPayload, claim: string): void {
  const value = payload[claim];
  if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value))) invalid(claim);
}

/**
 * Reads the claims of an already signature-checked token (iss, aud, exp and iat are checked by
 * the verifier). Anything not of the documented type makes the token invalid (401).
 */
export function readIdentityClaims(payload: JWTPayload): IdentityClaims {
  const { sub, exp, iat } = payload;
  if (typeof sub !== 'string' || sub === '' || Buffer.byteLength(sub, 'utf8') > MAX_SUB_BYTES) invalid('sub');
  if (typeof exp !== 'number') invalid('exp');
  if (typeof iat !== 'number' || !Number.isFinite(iat)) invalid('iat');
  optionalNumber(payload, 'auth_time');
  optionalString(payload, 'sid', MAX_URI_LENGTH);
  optionalString(payload, 'locale', 64);
  optionalString(payload, 'zoneinfo', 64);
  optionalString(payload, 'picture', MAX_URI_LENGTH);
  for (const claim of NAME_PARTS) optionalName(payload, claim);
  const email = optionalString(payload, 'email', 254, EMAIL);
  const telephone = optionalString(payload, 'telephone', 16, E164);
  return {
    sub,
    exp,
    iat,
    email,
    emailVerified: email !== null && optionalBoolean(payload, 'email_verified'),
    telephone,
    telephoneVerified: telephone !== null && optionalBoolean(payload, 'telephone_verified'),
    name: optionalName(payload, 'name') ?? joinedName(payload),
  };
}

const NAME_PARTS = ['given_name', 'middle_name', 'family_name'];

/** A name claim holds plain text, the rule of every display name (src/http/plain-text.ts); else the token is invalid. */
function optionalName(payload: JWTPayload, claim: string): string | null {
  const value = optionalString(payload, claim, MAX_NAME_LENGTH);
  if (value !== null && !isPlainText(value)) invalid(claim);
  return value;
}

function joinedName(payload: JWTPayload): string | null {
  const parts = NAME_PARTS.map((c) => payload[c]).filter((v): v is string => typeof v === 'string' && v !== '');
  const joined = parts.join(' ').slice(0, MAX_NAME_LENGTH);
  return joined === '' ? null : joined;
}
