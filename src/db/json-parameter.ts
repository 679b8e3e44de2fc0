/**
 * A value as the text of a `json` parameter, its strings as the driver sends a `text` one. The
 * driver encodes a string as UTF-8, which turns a lone surrogate (a JavaScript string need not be
 * well-formed Unicode) into U+FFFD; JSON.stringify writes it as `\udXXX`, which PostgreSQL's JSON
 * parser refuses. So a string reaches the database the same either way.
 */
export function jsonParameter(value: unknown): string {
  const text = JSON.stringify(value);
  // JSON.stringify escapes a surrogate only when it is alone; a replacer on every value is for the rare text that has one.
  if (!ESCAPED_SURROGATE.test(text)) return text;
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === 'string' && LONE_SURROGATE.test(item) ? item.replace(LONE_SURROGATES, '\ufffd') : item));
}

/** A surrogate as JSON.stringify escapes it (or, at worst, a backslash and such text: the slow path, as correct). */
const ESCAPED_SURROGATE = /\\ud[89a-f][0-9a-f]{2}/i;

/** A UTF-16 surrogate without its other half. */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');
