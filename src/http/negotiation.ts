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

export function negotiate(accept: string | undefined): Negotiated {
  if (!accept || accept.trim() === '') return { version: 1, acceptsJson: true, acceptsEventStream: true };
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
