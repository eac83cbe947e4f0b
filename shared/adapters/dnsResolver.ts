import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { HostResolver } from '../ports/hostResolver.js';

/** The system resolver (what an HTTP client would use), every address of the host. */
export const dnsResolver: HostResolver = async (host) => {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare)) return [bare];
  return (await lookup(bare, { all: true })).map((entry) => entry.address);
};
