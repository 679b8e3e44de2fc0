/**
 * A value as the text of a `json` parameter, its strings as the driver sends a `text` one. The
 * driver encodes a string as UTF-8, which turns a lone surrogate (a JavaScript string need not be
 * well-formed Unicode) into U+FFFD; JSON.stringify writes it as `\udXXX`, which PostgreSQL's JSON
 * parser refuses. So a string reaches the database the same either way.
 */
export function jsonParameter(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === 'string' && LONE_SURROGATE.test(item) ? item.replace(LONE_SURROGATES, '\ufffd') : item));
}

/** A UTF-16 surrogate without its other half. */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');
