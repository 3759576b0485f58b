import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Resolves a host name to its addresses (dns.lookup by default; tests inject their own). */
export type HostResolver = (hostname: string) => Promise<string[]>;

export const systemResolver: HostResolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export class AddressNotAllowedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AddressNotAllowedError';
  }
}

/**
 * Whether a production webhook may be sent to `address`. Only ordinary public unicast passes:
 * loopback, private (RFC 1918, IPv6 unique-local), link-local (169.254/16, where cloud metadata
 * services answer), carrier-grade NAT (100.64/10, Alibaba's metadata), unspecified, multicast,
 * broadcast, documentation and other reserved ranges are refused, and so are IPv6 forms that
 * embed an IPv4 address (mapped, NAT64, 6to4, Teredo) unless the embedded address itself passes.
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return false;
  let parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

/** The host of a URL as a resolver or an IP check wants it (IPv6 literals lose their brackets). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * Production check of where a URL leads: every address the host resolves to must be public
 * (one private answer among public ones is enough to refuse: the connection could take it).
 * Answers the addresses; throws AddressNotAllowedError otherwise.
 */
export async function publicAddressesOf(host: string, resolve: HostResolver): Promise<string[]> {
  if (isIP(host)) {
    if (!isPublicAddress(host)) throw new AddressNotAllowedError(`${host} is not a public address`);
    return [host];
  }
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch {
    throw new AddressNotAllowedError(`the host ${host} could not be resolved`);
  }
  if (addresses.length === 0) throw new AddressNotAllowedError(`the host ${host} could not be resolved`);
  const refused = addresses.find((a) => !isPublicAddress(a));
  if (refused) throw new AddressNotAllowedError(`the host ${host} resolves to ${refused}, which is not a public address`);
  return addresses;
}

export interface UrlRules {
  /** Production: https only, and only to public addresses. */
  production: boolean;
}

export const MAX_URL_LENGTH = 500;

/**
 * Syntax rules of a webhook or callback URL (the address check is separate: it needs DNS).
 * Answers a description of the first problem, or the parsed URL.
 */
export function checkUrlSyntax(text: string, rules: UrlRules): { url: URL } | { problem: string } {
  if (text.length > MAX_URL_LENGTH) return { problem: `must be at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: 'must be an absolute http or https URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: 'must be an absolute http or https URL' };
  if (rules.production && url.protocol !== 'https:') return { problem: 'must use https in production' };
  // Credentials in the URL would be sent as they are and logged by proxies: basicAuth is the place for them.
  if (url.username || url.password) return { problem: 'must not carry credentials; register them in basicAuth' };
  if (!url.hostname) return { problem: 'must name a host' };
  return { url };
}
