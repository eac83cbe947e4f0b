import { isIPv4, isIPv6 } from 'node:net';

/** An IPv6 address as its 16 bytes, or null when it is not one. A zone (`%eth0`) is ignored. */
export function ipv6Bytes(address: string): number[] | null {
  const bare = address.replace(/%.*$/, '');
  if (!isIPv6(bare)) return null;
  let text = bare;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (dotted) {
    const [a, b, c, d] = dotted.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::') as [string, string | undefined];
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const words = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return words.flatMap((word) => [word >> 8, word & 0xff]);
}

const dottedQuad = (bytes: number[]) => bytes.join('.');

/**
 * The IPv4 address an IPv6 address stands for, when it is one of the forms that reach an IPv4
 * host: IPv4-mapped (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d), IPv4-compatible
 * (::a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:aabb:ccdd::). Such an address is only
 * as public as the IPv4 address inside it.
 */
export function embeddedIpv4(address: string): string | null {
  if (isIPv4(address)) return null;
  const bytes = ipv6Bytes(address);
  if (!bytes) return null;
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  const last4 = dottedQuad(bytes.slice(12));
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return last4; // mapped
  if (zeros(0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zeros(10, 12)) return last4; // translated
  if (zeros(0, 12)) return last4; // compatible (also :: and ::1, which are classified before)
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12)) return last4; // NAT64
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return dottedQuad(bytes.slice(2, 6)); // 6to4
  return null;
}
