import { BlockList, isIP } from 'node:net';

export type AddressKind = 'loopback' | 'private' | 'link-local' | 'unspecified' | 'public';

/** The kinds a webhook URL may be refused for; `public` is always allowed. */
export const RESTRICTED_KINDS = ['loopback', 'private', 'link-local'] as const;
export type RestrictedKind = (typeof RESTRICTED_KINDS)[number];

function blockList(ranges: [string, number, 'ipv4' | 'ipv6'][]): BlockList {
  const list = new BlockList();
  for (const [network, prefix, family] of ranges) list.addSubnet(network, prefix, family);
  return list;
}

const KINDS: [Exclude<AddressKind, 'public'>, BlockList][] = [
  ['unspecified', blockList([['0.0.0.0', 8, 'ipv4'], ['::', 128, 'ipv6']])],
  ['loopback', blockList([['127.0.0.0', 8, 'ipv4'], ['::1', 128, 'ipv6']])],
  // 169.254.169.254 is where clouds serve instance metadata and credentials.
  ['link-local', blockList([['169.254.0.0', 16, 'ipv4'], ['fe80::', 10, 'ipv6']])],
  [
    'private',
    blockList([
      ['10.0.0.0', 8, 'ipv4'],
      ['172.16.0.0', 12, 'ipv4'],
      ['192.168.0.0', 16, 'ipv4'],
      ['100.64.0.0', 10, 'ipv4'],
      ['fc00::', 7, 'ipv6'],
    ]),
  ],
];

/** What kind of network an IP address is on. IPv4-mapped IPv6 addresses are read as IPv4. */
export function classifyAddress(address: string): AddressKind {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const ip = mapped ?? address;
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  for (const [kind, list] of KINDS) if (list.check(ip, family)) return kind;
  return 'public';
}

/** Whether a webhook may be sent to this address, given the kinds the operator allows. */
export function isAllowedAddress(address: string, allowed: readonly RestrictedKind[]): boolean {
  const kind = classifyAddress(address);
  return kind === 'public' || (kind !== 'unspecified' && allowed.includes(kind));
}
