import { errors } from '../errors/catalogue.js';

/** Input bounds of decisions §1: names 255, URLs 2048; an address is longer than a name. */
export const BOUNDS = { name: 255, url: 2048, mailingAddress: 1024 } as const;

export const COLOUR_PATTERN = '^#[0-9A-Fa-f]{6}$';

function parse(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/** An absolute https URL with a host (the spec: "starting with https://"). */
export function isHttpsUrl(value: string): boolean {
  const url = parse(value);
  return /^https:\/\//i.test(value) && url !== null && url.protocol === 'https:' && url.hostname !== '';
}

/** A support contact is an https page or a mailto: address. */
export function isSupportContact(value: string): boolean {
  if (isHttpsUrl(value)) return true;
  const url = parse(value);
  return /^mailto:/i.test(value) && url !== null && url.pathname.includes('@');
}

/** Any absolute URI (deep links use the application's own scheme). */
export function isAbsoluteUri(value: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(value) && parse(value) !== null;
}

/** Schemes a browser runs or reads locally instead of opening an app: never a link we show. */
const SCRIPT_SCHEMES = new Set(['javascript:', 'vbscript:', 'data:', 'blob:', 'file:', 'about:', 'filesystem:']);

/** A deep link into the application: any absolute URI (its own scheme included) but a script or local one. */
export function isAppLink(value: string): boolean {
  const url = parse(value);
  return isAbsoluteUri(value) && url !== null && !SCRIPT_SCHEMES.has(url.protocol);
}

/** A link people click in an email: http(s) only, so no javascript: or data: URLs. */
export function isWebUrl(value: string): boolean {
  const url = parse(value);
  return url !== null && (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
}

/**
 * True when `value` lies under one of the CDN base URLs: same scheme, host and port, and a path
 * inside the base's path (so `https://cdn.example/x` is not "on" `https://cdn.example.evil`).
 */
export function isOnCdn(value: string, cdnBases: readonly string[]): boolean {
  const url = parse(value);
  if (!url || url.username || url.password) return false;
  return cdnBases.some((base) => {
    const cdn = parse(base);
    if (!cdn || cdn.origin !== url.origin) return false;
    const prefix = cdn.pathname.endsWith('/') ? cdn.pathname : `${cdn.pathname}/`;
    return url.pathname.startsWith(prefix) && url.pathname.length > prefix.length;
  });
}

/** The browser origin (scheme://host[:port]) a CORS domain stands for; 400 when it names none. */
export function corsOriginOf(value: string): string {
  const url = parse(value);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || !url.hostname) throw errors.validation('url must be an http(s) URL');
  if (url.username || url.password || url.search || url.hash) throw errors.validation('url must name an origin: no credentials, query or fragment');
  if (url.pathname !== '/' && url.pathname !== '') throw errors.validation('url must name an origin (scheme, host and port), without a path');
  return url.origin;
}

/** An issuer is compared byte for byte with a token's `iss`, so it is kept exactly as given. */
export function checkIssuerUrl(value: string, serviceIssuer: string): void {
  if (!isAbsoluteUri(value)) throw errors.validation('url must be an absolute URI');
  if (value === serviceIssuer) throw errors.validation("url must not be the service's own issuer");
}

export interface EmailPreferencesInput {
  senderEmail?: string;
  senderName?: string;
  primaryColour?: string;
  secondaryColour?: string;
  callToAction?: { actionTarget: string; headline: string; actionText: string };
}

export interface ApplicationFieldsInput {
  privacyPolicy?: string | null;
  supportContact?: string | null;
  appLink?: string | null;
  logoUrl?: string | null;
  emailPreferences?: EmailPreferencesInput | null;
}

/** The rules of the spec's Application table that a schema cannot express; 400 on the first broken one. */
export function checkApplicationFields(fields: ApplicationFieldsInput, cdnBases: readonly string[]): void {
  const { privacyPolicy, supportContact, appLink, logoUrl, emailPreferences } = fields;
  if (privacyPolicy != null && !isHttpsUrl(privacyPolicy)) throw errors.validation('privacyPolicy must start with https://');
  if (supportContact != null && !isSupportContact(supportContact)) throw errors.validation('supportContact must start with https:// or mailto:');
  if (appLink != null && !isAppLink(appLink)) throw errors.validation('appLink must be an absolute URI, not a javascript:, data: or local one');
  if (logoUrl != null && !isOnCdn(logoUrl, cdnBases)) throw errors.validation(`logoUrl must be hosted on the CDN (${cdnBases.join(' or ')})`);
  const target = emailPreferences?.callToAction?.actionTarget;
  if (target !== undefined && !isWebUrl(target)) throw errors.validation('callToAction.actionTarget must be an http(s) URL');
}
