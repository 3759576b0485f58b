import ipaddr from 'ipaddr.js';

/**
 * `allowedIps` entries are single addresses or CIDR ranges, IPv4 or IPv6. IPv4-mapped IPv6
 * addresses (`::ffff:10.0.0.1`, what a dual-stack socket reports) match their IPv4 entries.
 */
export function isValidIpOrCidr(entry: string): boolean {
  try {
    if (entry.includes('/')) ipaddr.parseCIDR(entry);
    else ipaddr.parse(entry);
    return true;
  } catch {
    return false;
  }
}

function normalise(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  try {
    const parsed = ipaddr.parse(address);
    return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()
      ? (parsed as ipaddr.IPv6).toIPv4Address()
      : parsed;
  } catch {
    return null;
  }
}

export function ipAllowed(address: string, allowed: string[]): boolean {
  if (allowed.length === 0) return true;
  const ip = normalise(address);
  if (!ip) return false;
  return allowed.some((entry) => {
    if (!entry.includes('/')) {
      const single = normalise(entry);
      return single !== null && single.kind() === ip.kind() && single.toString() === ip.toString();
    }
    const [range, bits] = ipaddr.parseCIDR(entry);
    const rangeIp = range.kind() === 'ipv6' && (range as ipaddr.IPv6).isIPv4MappedAddress()
      ? (range as ipaddr.IPv6).toIPv4Address()
      : range;
    const prefix = rangeIp === range ? bits : bits - 96;
    return rangeIp.kind() === ip.kind() && ip.match(rangeIp as any, prefix);
  });
}
