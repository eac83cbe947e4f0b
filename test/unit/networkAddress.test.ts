import { describe, expect, it } from 'vitest';
import { classifyAddress, isAllowedAddress } from '../../shared/domain/networkAddress.js';

describe('the outgoing address policy (webhooks and file inputs)', () => {
  it.each([
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['198.18.0.1', 'reserved'],
    ['198.19.255.254', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'], // Teredo
    ['64:ff9b:1::a00:1', 'private'], // local-use NAT64
    ['fec0::1', 'private'],
  ])('refuses %s, a %s address', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
    expect(isAllowedAddress(address, ['loopback', 'private', 'link-local'])).toBe(kind === 'private');
  });

  it.each([
    ['64:ff9b::7f00:1', 'loopback'], // NAT64
    ['64:ff9b::169.254.169.254', 'link-local'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['2002:a9fe:a9fe::1', 'link-local'], // 6to4 of 169.254.169.254
    ['2002:7f00:1::', 'loopback'],
    ['2002:c0a8:0101::5', 'private'], // 6to4 of 192.168.1.1
    ['::127.0.0.1', 'loopback'], // IPv4-compatible
    ['::a9fe:a9fe', 'link-local'],
    ['::ffff:127.0.0.1', 'loopback'], // IPv4-mapped
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:0:a9fe:a9fe', 'link-local'], // IPv4-translated
    ['::ffff:255.255.255.255', 'broadcast'],
    ['64:ff9b::e000:1', 'multicast'],
  ])('reads %s as the IPv4 address it carries: %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it('lets IPv6 forms of public IPv4 addresses through, and public IPv6 addresses', () => {
    for (const address of ['64:ff9b::8.8.8.8', '2002:808:808::1', '::ffff:8.8.8.8', '2606:4700::1', '2001:4860:4860::8888', '93.184.216.34']) {
      expect([address, classifyAddress(address)]).toEqual([address, 'public']);
    }
  });

  it('refuses what is not an IP address at all, and ignores an IPv6 zone', () => {
    expect(classifyAddress('localhost')).toBe('reserved');
    expect(classifyAddress('fe80::1%eth0')).toBe('link-local');
  });
});
