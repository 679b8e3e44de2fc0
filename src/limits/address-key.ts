import ipaddr from 'ipaddr.js';

/**
 * The key a client address is counted under. An IPv6 client is counted by its /64: a subscriber
 * is usually handed a whole /64, and counting each of its addresses apart would let one client
 * spread over endless keys. IPv4 (and IPv4-mapped IPv6) counts per address.
 */
export function addressKey(ip: string): string {
  if (!ip.includes(':') || !ipaddr.IPv6.isValid(ip)) return ip;
  const address = ipaddr.IPv6.parse(ip);
  if (address.isIPv4MappedAddress()) return address.toIPv4Address().toString();
  return `${address.parts.slice(0, 4).map((part) => part.toString(16)).join(':')}::/64`;
}
