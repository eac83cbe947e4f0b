import { BlockList, isIP } from 'node:net';
import { embeddedIpv4 } from './embeddedIpv4.js';

export type AddressKind = 'loopback' | 'private' | 'link-local' | 'unspecified' | 'multicast' | 'broadcast' | 'reserved' | 'public';

/** The kinds an operator may allow outgoing requests to (SLUICE_WEBHOOK_ALLOW, SLUICE_INPUT_ALLOW); `public` is always allowed, the rest never. */
export const RESTRICTED_KINDS = ['loopback', 'private', 'link-local'] as const;
export type RestrictedKind = (typeof RESTRICTED_KINDS)[number];

function blockList(ranges: [string, number][]): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, isIP(network) === 6 ? 'ipv6' : 'ipv4');
  return list;
}

/** Every range that is not the public internet (IANA's special-purpose registries), first match wins. */
const KINDS: [Exclude<AddressKind, 'public'>, BlockList][] = [
  [
    'unspecified',
    blockList([
      ['0.0.0.0', 8],
      ['::', 128],
    ]),
  ],
  [
    'loopback',
    blockList([
      ['127.0.0.0', 8],
      ['::1', 128],
    ]),
  ],
  // 169.254.169.254 is where clouds serve instance metadata and credentials.
  [
    'link-local',
    blockList([
      ['169.254.0.0', 16],
      ['fe80::', 10],
    ]),
  ],
  // 100.64/10 is carrier-grade NAT; fec0::/10 the old site-local; 64:ff9b:1::/48 NAT64 for local use.
  [
    'private',
    blockList([
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
      ['100.64.0.0', 10],
      ['fc00::', 7],
      ['fec0::', 10],
      ['64:ff9b:1::', 48],
    ]),
  ],
  ['broadcast', blockList([['255.255.255.255', 32]])],
  [
    'multicast',
    blockList([
      ['224.0.0.0', 4],
      ['ff00::', 8],
    ]),
  ],
  [
    'reserved',
    blockList([
      ['192.0.0.0', 24], // IETF protocol assignments
      ['192.0.2.0', 24], // documentation
      ['198.51.100.0', 24],
      ['203.0.113.0', 24],
      ['198.18.0.0', 15], // benchmarking: often used for internal networks
      ['192.88.99.0', 24], // 6to4 relays
      ['240.0.0.0', 4], // future use
      ['2001::', 23], // IETF protocol assignments, with Teredo (2001::/32), whose tunnels reach any IPv4 host
      ['2001:db8::', 32], // documentation
      ['3fff::', 20],
      ['100::', 64], // discard
    ]),
  ],
];

/**
 * What kind of network an IP address is on. An IPv6 address that carries an IPv4 one (mapped,
 * compatible, NAT64, 6to4) is what that IPv4 address is; anything that is not an IP address is
 * `reserved`.
 */
export function classifyAddress(address: string): AddressKind {
  const ip = address.replace(/%.*$/, '');
  const family = isIP(ip);
  if (family === 0) return 'reserved';
  const list = family === 6 ? 'ipv6' : 'ipv4';
  for (const [kind, ranges] of KINDS.slice(0, 2)) if (ranges.check(ip, list)) return kind;
  const inner = embeddedIpv4(ip);
  if (inner !== null) return classifyAddress(inner);
  for (const [kind, ranges] of KINDS) if (ranges.check(ip, list)) return kind;
  return 'public';
}

/** Whether the service may connect to this address, given the restricted kinds the operator allows. */
export function isAllowedAddress(address: string, allowed: readonly RestrictedKind[]): boolean {
  const kind = classifyAddress(address);
  return kind === 'public' || (allowed as readonly string[]).includes(kind);
}
