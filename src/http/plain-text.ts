import { Type, type StringOptions } from '@sinclair/typebox';

/**
 * Characters no name or short text may hold, wherever it comes from (a request body or a
 * third-party token's claims): C0 controls, DEL and C1 controls (CR/LF forge lines in mail headers,
 * logs and exports; ESC and BEL drive terminals), the line and paragraph separators U+2028/U+2029
 * (line breaks to JavaScript and many renderers), and the bidirectional controls (ALM, LRM, RLM,
 * LRE…RLO, LRI…PDI), which reorder what a reader sees (issue 15, issue 27 point 5).
 */
const FORBIDDEN = '\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069';

/** The JSON Schema pattern of plain text (the same rule as isPlainText). */
export const PLAIN_TEXT_PATTERN = `^[^${FORBIDDEN}]*$`;

const PLAIN_TEXT = new RegExp(PLAIN_TEXT_PATTERN, 'u');

export function isPlainText(value: string): boolean {
  return PLAIN_TEXT.test(value);
}

/** A string schema holding plain text only (400 otherwise). */
export function PlainText(options: StringOptions = {}) {
  return Type.String({ ...options, pattern: PLAIN_TEXT_PATTERN });
}
