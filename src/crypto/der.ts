/**
 * A minimal, strict DER reader: just enough ASN.1 to walk an X.509 certificate without an
 * allocation-heavy general parser (chain verification runs on every unlock). Only definite,
 * minimally encoded lengths and single-byte tags are accepted; anything else throws DerError.
 * Values are zero-copy views (`subarray`) of the input.
 */

export class DerError extends Error {
  override name = 'DerError';
}

/** One TLV element: `raw` is the whole encoding, `value` its contents. */
export interface DerElement {
  tag: number;
  raw: Buffer;
  value: Buffer;
}

export const TAG = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  OID: 0x06,
  UTF8_STRING: 0x0c,
  PRINTABLE_STRING: 0x13,
  TELETEX_STRING: 0x14,
  IA5_STRING: 0x16,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  BMP_STRING: 0x1e,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;

/** Context-specific constructed tag [n], as used for optional certificate fields. */
export const contextTag = (n: number): number => 0xa0 | n;

function readLength(input: Buffer, offset: number): { length: number; next: number } {
  const first = input[offset];
  if (first === undefined) throw new DerError('truncated length');
  if (first < 0x80) return { length: first, next: offset + 1 };
  const count = first & 0x7f;
  // 0x80 is BER's indefinite length; more than 4 length bytes is never a certificate.
  if (count === 0 || count > 4) throw new DerError('unsupported length form');
  if (offset + 1 + count > input.length) throw new DerError('truncated length');
  if (input[offset + 1] === 0) throw new DerError('non-minimal length');
  const length = input.readUIntBE(offset + 1, count);
  if (length < 0x80) throw new DerError('non-minimal length');
  return { length, next: offset + 1 + count };
}

/** The element starting at `offset`; it must end within `input`. */
export function readElement(input: Buffer, offset = 0): DerElement {
  const tag = input[offset];
  if (tag === undefined) throw new DerError('truncated element');
  if ((tag & 0x1f) === 0x1f) throw new DerError('multi-byte tags are not supported');
  const { length, next } = readLength(input, offset + 1);
  const end = next + length;
  if (end > input.length) throw new DerError('truncated element');
  return { tag, raw: input.subarray(offset, end), value: input.subarray(next, end) };
}

/** `input` must be exactly one element, with the given tag when one is named. */
export function parseElement(input: Buffer, expectedTag?: number): DerElement {
  const element = readElement(input);
  if (element.raw.length !== input.length) throw new DerError('trailing bytes after element');
  if (expectedTag !== undefined) expectTag(element, expectedTag);
  return element;
}

/** The elements that make up `contents` (of a SEQUENCE or SET), end to end. */
export function readChildren(contents: Buffer): DerElement[] {
  const children: DerElement[] = [];
  let offset = 0;
  while (offset < contents.length) {
    const child = readElement(contents, offset);
    children.push(child);
    offset += child.raw.length;
  }
  return children;
}

export function expectTag(element: DerElement | undefined, tag: number): DerElement {
  if (element === undefined) throw new DerError(`missing element 0x${tag.toString(16)}`);
  if (element.tag !== tag) throw new DerError(`expected tag 0x${tag.toString(16)}, got 0x${element.tag.toString(16)}`);
  return element;
}

/** Dotted form of an OBJECT IDENTIFIER's contents. */
export function decodeOid(element: DerElement): string {
  const bytes = expectTag(element, TAG.OID).value;
  if (bytes.length === 0 || bytes[bytes.length - 1]! & 0x80) throw new DerError('malformed OID');
  const arcs: number[] = [];
  let arc = 0;
  for (const byte of bytes) {
    if (arc === 0 && byte === 0x80) throw new DerError('non-minimal OID arc');
    if (arc > 2 ** 45) throw new DerError('OID arc too large');
    arc = arc * 128 + (byte & 0x7f);
    if (byte & 0x80) continue;
    if (arcs.length === 0) arcs.push(arc < 80 ? Math.floor(arc / 40) : 2, arc < 80 ? arc % 40 : arc - 80);
    else arcs.push(arc);
    arc = 0;
  }
  return arcs.join('.');
}

export function decodeBoolean(element: DerElement): boolean {
  const bytes = expectTag(element, TAG.BOOLEAN).value;
  if (bytes.length !== 1 || (bytes[0] !== 0 && bytes[0] !== 0xff)) throw new DerError('malformed BOOLEAN');
  return bytes[0] === 0xff;
}

/** A small non-negative INTEGER (versions, path lengths). */
export function decodeSmallInteger(element: DerElement): number {
  const bytes = expectTag(element, TAG.INTEGER).value;
  if (bytes.length === 0 || bytes.length > 4) throw new DerError('INTEGER out of range');
  if (bytes[0]! & 0x80) throw new DerError('negative INTEGER');
  if (bytes.length > 1 && bytes[0] === 0 && !(bytes[1]! & 0x80)) throw new DerError('non-minimal INTEGER');
  return bytes.readUIntBE(0, bytes.length);
}

/** The bytes of a BIT STRING and how many bits of its last byte are unused. */
export function decodeBitString(element: DerElement): { bytes: Buffer; unusedBits: number } {
  const value = expectTag(element, TAG.BIT_STRING).value;
  const unusedBits = value[0];
  if (unusedBits === undefined || unusedBits > 7 || (value.length === 1 && unusedBits !== 0)) throw new DerError('malformed BIT STRING');
  return { bytes: value.subarray(1), unusedBits };
}

/** Unix seconds of a UTCTime (YYMMDDHHMMSSZ) or GeneralizedTime (YYYYMMDDHHMMSSZ), as DER requires. */
export function decodeTime(element: DerElement): number {
  const text = element.value.toString('latin1');
  const match =
    element.tag === TAG.UTC_TIME ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text)
    : element.tag === TAG.GENERALIZED_TIME ? /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text)
    : null;
  if (match === null) throw new DerError('malformed time');
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  // RFC 5280 §4.1.2.5.1: two-digit years 50..99 are 19xx, 00..49 are 20xx.
  const fullYear = element.tag === TAG.UTC_TIME ? (year >= 50 ? 1900 + year : 2000 + year) : year;
  const millis = Date.UTC(fullYear, month - 1, day, hour, minute, second);
  const check = new Date(millis);
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) {
    throw new DerError('invalid date');
  }
  return millis / 1000;
}

/** Text of the string types a distinguished name uses. */
export function decodeDirectoryString(element: DerElement): string {
  switch (element.tag) {
    case TAG.UTF8_STRING:
      return new TextDecoder('utf-8', { fatal: true }).decode(element.value);
    case TAG.PRINTABLE_STRING:
    case TAG.IA5_STRING:
    case TAG.TELETEX_STRING:
      return element.value.toString('latin1');
    case TAG.BMP_STRING:
      if (element.value.length % 2 !== 0) throw new DerError('malformed BMPString');
      return Buffer.from(element.value).swap16().toString('utf16le');
    default:
      throw new DerError(`unsupported string type 0x${element.tag.toString(16)}`);
  }
}
