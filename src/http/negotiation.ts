/**
 * Content negotiation per decisions §1: `application/vnd.<vendor>.api-vN+json` selects version N
 * (the vendor is not checked), and wins over `application/json` listed beside it. No Accept, or
 * one admitting JSON by wildcard, means version 1.
 */
export interface Negotiated {
  /** Requested API version (1 when none is named). */
  version: number;
  acceptsJson: boolean;
  acceptsEventStream: boolean;
}

const VERSIONED = /^application\/vnd\.[^/]+\.api-v(\d{1,3})\+json$/;
const JSON_TYPES = new Set(['*/*', 'application/*', 'application/json']);

const NO_ACCEPT: Negotiated = Object.freeze({ version: 1, acceptsJson: true, acceptsEventStream: true });

/**
 * Accept headers parsed lately: a client sends the same one on every request, so each distinct
 * header is parsed once. Bounded: emptied when full (a client varying its header on purpose only
 * makes its own requests parse again).
 */
const parsedAccepts = new Map<string, Negotiated>();
const PARSED_ACCEPTS_MAX = 256;
/** Longer headers are parsed every time, so the cache stays small whatever is sent. */
const PARSED_ACCEPT_LENGTH_MAX = 256;

/** What `accept` asks for; the same frozen answer for the same header. */
export function negotiate(accept: string | undefined): Negotiated {
  if (!accept) return NO_ACCEPT;
  if (accept.length > PARSED_ACCEPT_LENGTH_MAX) return parseAccept(accept);
  let negotiated = parsedAccepts.get(accept);
  if (negotiated === undefined) {
    negotiated = Object.freeze(parseAccept(accept));
    if (parsedAccepts.size >= PARSED_ACCEPTS_MAX) parsedAccepts.clear();
    parsedAccepts.set(accept, negotiated);
  }
  return negotiated;
}

function parseAccept(accept: string): Negotiated {
  if (accept.trim() === '') return NO_ACCEPT;
  let version = 0;
  let acceptsJson = false;
  let acceptsEventStream = false;
  for (const range of accept.split(',')) {
    const [rawType, ...params] = range.split(';');
    const type = rawType!.trim().toLowerCase();
    if (params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(p))) continue;
    const match = VERSIONED.exec(type);
    if (match) {
      version = Math.max(version, Number(match[1]));
      acceptsJson = true;
    } else if (JSON_TYPES.has(type) || /^application\/[^/]*\+json$/.test(type)) {
      acceptsJson = true;
    }
    if (type === 'text/event-stream' || type === '*/*' || type === 'text/*') acceptsEventStream = true;
  }
  return { version: Math.max(version, 1), acceptsJson, acceptsEventStream };
}

/** The highest version of an endpoint not above the requested one (decisions §1). */
export function pickVersion<V extends number>(requested: number, available: readonly V[]): V {
  let best = available[0]!;
  for (const v of available) if (v <= requested && v > best) best = v;
  return best;
}
