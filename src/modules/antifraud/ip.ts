import ipaddr from 'ipaddr.js';

/**
 * Canonical spellings of addresses and ranges, so that one address or range has one stored
 * value: the blocklist's unique (kind, value) then catches duplicates, and "which entries contain
 * this IP" becomes an exact-match lookup of the IP's enclosing prefixes (indexed, no scan).
 *
 * Parsing is strict on purpose: ipaddr.parse() reads "010.1.1.1" as octal and "1.2.3" as
 * 1.2.0.3, spellings an operator never means.
 */
type Address = ipaddr.IPv4 | ipaddr.IPv6;

function parseAddress(text: string): Address | null {
  if (text.includes(':')) {
    if (!ipaddr.IPv6.isValid(text)) return null;
    const v6 = ipaddr.IPv6.parse(text);
    // What a dual-stack socket reports for an IPv4 client: treat it as that IPv4 address.
    if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
    return ipaddr.fromByteArray(v6.toByteArray()); // drops a zone id (%eth0)
  }
  return ipaddr.IPv4.isValidFourPartDecimal(text) ? ipaddr.IPv4.parse(text) : null;
}

const bitsOf = (address: Address) => (address.kind() === 'ipv4' ? 32 : 128);

/** The network address of `bytes` at prefix length `bits`, as text. */
function networkText(bytes: number[], bits: number): string {
  const masked = bytes.map((byte, i) => {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    return byte & ((0xff << (8 - keep)) & 0xff);
  });
  return ipaddr.fromByteArray(masked).toString();
}

/** A single address in canonical form, or null when it is not one. */
export function canonicalIp(text: string): string | null {
  const address = parseAddress(text.trim());
  return address ? address.toString() : null;
}

/**
 * An address or CIDR range in canonical form: the address alone, or `network/bits` with the host
 * bits cleared (`10.1.2.3/8` -> `10.0.0.0/8`). A full-length prefix is the address itself, so
 * `1.2.3.4/32` and `1.2.3.4` are the same entry. Null when malformed.
 */
export function canonicalIpOrCidr(text: string): string | null {
  const trimmed = text.trim();
  const slash = trimmed.indexOf('/');
  if (slash < 0) return canonicalIp(trimmed);
  const address = parseAddress(trimmed.slice(0, slash));
  const prefix = trimmed.slice(slash + 1);
  if (!address || !/^\d{1,3}$/.test(prefix)) return null;
  let bits = Number(prefix);
  // An IPv4-mapped range (::ffff:10.0.0.0/104) was turned into IPv4 above: shift its prefix.
  if (address.kind() === 'ipv4' && trimmed.slice(0, slash).includes(':')) bits -= 96;
  if (bits < 0 || bits > bitsOf(address)) return null;
  if (bits === bitsOf(address)) return address.toString();
  return `${networkText(address.toByteArray(), bits)}/${bits}`;
}

/** Prefix lengths (descending) worth trying per family: those some stored range uses. */
export interface PrefixLengths {
  ipv4: readonly number[];
  ipv6: readonly number[];
}

/**
 * Every canonical entry that contains `ip`, most specific first: the address itself, then its
 * network at each shorter prefix (`/31` ... `/0`), or only at the given `lengths`.
 * Empty when `ip` is not an address.
 */
export function enclosingEntries(ip: string, lengths?: PrefixLengths): string[] {
  const address = parseAddress(ip.trim());
  if (!address) return [];
  const max = bitsOf(address);
  const bytes = address.toByteArray();
  const out = [address.toString()];
  const tried = lengths ? lengths[address.kind()] : Array.from({ length: max }, (_, i) => max - 1 - i);
  for (const bits of tried) if (bits < max) out.push(`${networkText(bytes, bits)}/${bits}`);
  return out;
}

/** The IP family of a canonical entry, and its prefix length (full length for an address). */
export function entryShape(entry: string): { family: 'ipv4' | 'ipv6'; bits: number } {
  const family = entry.includes(':') ? 'ipv6' : 'ipv4';
  const slash = entry.indexOf('/');
  return { family, bits: slash < 0 ? (family === 'ipv4' ? 32 : 128) : Number(entry.slice(slash + 1)) };
}
