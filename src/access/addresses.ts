import ipaddr from 'ipaddr.js';

/**
 * Permitted addresses of a lock (decisions §1, §4): IPv4 or IPv6 addresses and CIDR ranges.
 * Input is strict (dotted-quad IPv4 only, no zone ids, no leading zeros in a prefix) because
 * ipaddr.js alone would read `010.0.0.1` as octal and `127.1` as 127.0.0.1, and a rule that
 * does not say what its author thinks is worse than a 400.
 */

export const MAX_PERMITTED_ADDRESSES = 256;
const MAX_ENTRY_LENGTH = 64;

type Address = ipaddr.IPv4 | ipaddr.IPv6;
/** An address or range: `bits` is the prefix length (32/128 for a single address). */
export interface AddressRange {
  address: Address;
  bits: number;
}

export type PermittedAddressesResult = { ok: true; ranges: AddressRange[] } | { ok: false; message: string };

/** IPv4-mapped IPv6 (`::ffff:a.b.c.d`, `::ffff:0:0/96` and narrower) as the IPv4 it stands for. */
function unmap(range: AddressRange): AddressRange {
  if (range.address.kind() === 'ipv6' && range.bits >= 96) {
    const v6 = range.address as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return { address: v6.toIPv4Address(), bits: range.bits - 96 };
  }
  return range;
}

function parseAddress(text: string): Address | null {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (!text.includes('%') && ipaddr.IPv6.isValid(text)) return ipaddr.IPv6.parse(text);
  return null;
}

/** One entry, strictly; null when it is not an address or a range. */
export function parseAddressRange(entry: string): AddressRange | null {
  if (entry.length === 0 || entry.length > MAX_ENTRY_LENGTH) return null;
  const slash = entry.indexOf('/');
  const address = parseAddress(slash === -1 ? entry : entry.slice(0, slash));
  if (address === null) return null;
  const maxBits = address.kind() === 'ipv4' ? 32 : 128;
  if (slash === -1) return unmap({ address, bits: maxBits });
  const prefix = entry.slice(slash + 1);
  if (!/^(0|[1-9][0-9]{0,2})$/.test(prefix) || Number(prefix) > maxBits) return null;
  return unmap({ address, bits: Number(prefix) });
}

/** Validates a whole list as given in lock settings; the message suits a 400. */
export function parsePermittedAddresses(list: unknown): PermittedAddressesResult {
  if (!Array.isArray(list)) return { ok: false, message: 'permittedAddresses must be an array of IP addresses or CIDR ranges' };
  if (list.length > MAX_PERMITTED_ADDRESSES) {
    return { ok: false, message: `permittedAddresses may hold at most ${MAX_PERMITTED_ADDRESSES} entries` };
  }
  const ranges: AddressRange[] = [];
  for (const [index, entry] of list.entries()) {
    const range = typeof entry === 'string' ? parseAddressRange(entry) : null;
    if (range === null) {
      return { ok: false, message: `permittedAddresses[${index}] is not an IPv4/IPv6 address or CIDR range` };
    }
    ranges.push(range);
  }
  return { ok: true, ranges };
}

/** The caller's address as the HTTP layer reports it (lenient: the socket is the authority), or null. */
function parseCaller(ip: string): Address | null {
  const bare = ip.split('%')[0] ?? '';
  if (!ipaddr.isValid(bare)) return null;
  return ipaddr.process(bare); // process() turns ::ffff:a.b.c.d into a.b.c.d
}

function rangeContains(range: AddressRange, caller: Address): boolean {
  return range.address.kind() === caller.kind() && caller.match(range.address, range.bits);
}

/**
 * True when the list is empty (unrestricted) or `callerIp` equals an entry or lies inside a range.
 * Fails closed: an unknown or unparsable caller address, or a stored entry that no longer parses,
 * never matches.
 */
export function isAddressPermitted(list: readonly string[], callerIp: string | null | undefined): boolean {
  if (list.length === 0) return true;
  if (callerIp === null || callerIp === undefined) return false;
  const caller = parseCaller(callerIp);
  if (caller === null) return false;
  return list.some((entry) => {
    const range = parseAddressRange(entry);
    return range !== null && rangeContains(range, caller);
  });
}
