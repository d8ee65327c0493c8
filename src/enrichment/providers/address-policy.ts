import dns from 'node:dns';
import net from 'node:net';

/**
 * IP ranges a server-side fetcher must not reach (SSRF defence, OWASP "Server-Side Request
 * Forgery Prevention Cheat Sheet"): IANA special-purpose registries (RFC 6890) for IPv4
 * (this-network, private RFC 1918, CGNAT RFC 6598, loopback, link-local RFC 3927, IETF
 * protocol assignments, documentation/TEST-NET, benchmarking RFC 2544, multicast, reserved,
 * broadcast) and IPv6 (unspecified, loopback, IPv4-mapped in unusual spellings, NAT64 RFC 6052,
 * discard, documentation, ULA fc00::/7, link-local fe80::/10, site-local, multicast).
 */
const BLOCKED_V4 = new net.BlockList();
// A separate list: Node's BlockList also matches IPv4 addresses against IPv6 rules (as
// IPv4-mapped), so one shared list would let an IPv6 rule decide for every IPv4 address.
const BLOCKED_V6 = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  BLOCKED_V4.addSubnet(prefix, bits, 'ipv4');
for (const [prefix, bits] of [
  ['::', 128],
  ['::1', 128],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  BLOCKED_V6.addSubnet(prefix, bits, 'ipv6');

/**
 * The IPv4 address embedded in an IPv4-mapped (`::ffff:a.b.c.d` / `::ffff:7f00:1`) or
 * IPv4-compatible IPv6 address, else null; such addresses reach the IPv4 host.
 */
function embeddedIpv4(ip: string): string | null {
  const dotted = /^::(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (dotted) return dotted[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(ip);
  if (!hex) return null;
  const hi = parseInt(hex[1], 16);
  const lo = parseInt(hex[2], 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/**
 * Whether an IP address literal (IPv4 or IPv6, brackets allowed) is loopback, private,
 * link-local or otherwise not a public unicast address. IPv4-mapped IPv6 addresses are judged
 * by their IPv4 part. Anything that is not an IP literal counts as not public (true).
 */
export function isNonPublicAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = net.isIP(ip);
  if (family === 4) return BLOCKED_V4.check(ip, 'ipv4');
  if (family !== 6) return true;
  const v4 = embeddedIpv4(ip);
  if (v4) return BLOCKED_V4.check(v4, 'ipv4');
  return BLOCKED_V6.check(ip, 'ipv6');
}

/** Raised when a URL's host is or resolves to an address the policy refuses. */
export class BlockedAddressError extends Error {
  constructor(host: string, address: string) {
    super(`refused to connect to ${host} (${address}): not a public address`);
    this.name = 'BlockedAddressError';
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `dns.lookup`-compatible function for socket connections (undici `connect.lookup`) that
 * resolves every address of the host and fails with {@link BlockedAddressError} when any of
 * them is not public (so DNS answers mixing public and private addresses are refused, and a
 * rebinding answer is checked on the connection that uses it). With `allowPrivate` it is plain
 * `dns.lookup`.
 */
export function guardedLookup(allowPrivate: boolean): (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => void {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const list = addresses as dns.LookupAddress[];
      const bad = allowPrivate ? undefined : list.find((a) => isNonPublicAddress(a.address));
      if (bad) return callback(Object.assign(new BlockedAddressError(hostname, bad.address), { code: 'EBLOCKEDADDRESS' }), '');
      if (list.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
      if (options.all) return callback(null, list);
      return callback(null, list[0].address, list[0].family);
    });
  };
}

/**
 * Checks a URL before any connection: http(s) only, and an IP-literal host must be public
 * unless `allowPrivate`. Hostnames are checked at connect time by {@link guardedLookup}.
 * @throws BlockedAddressError for a non-public IP literal; Error for another scheme
 */
export function assertFetchableUrl(url: URL, allowPrivate: boolean): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`refused to fetch ${url.protocol} URL`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && net.isIP(host) && isNonPublicAddress(host)) throw new BlockedAddressError(host, host);
  if (!allowPrivate && /^localhost$|\.localhost$/i.test(host)) throw new BlockedAddressError(host, 'localhost');
}
