import { isIP, type LookupFunction } from 'node:net';
import { lookup as dnsLookup } from 'node:dns';
import type { RestrictedKind } from '../domain/networkAddress.js';
import { classifyAddress, isAllowedAddress } from '../domain/networkAddress.js';

/** The address a connection would use is not one the service may connect to. */
export class RefusedAddress extends Error {
  override name = 'RefusedAddress';
}

/**
 * A DNS lookup for node's HTTP clients that refuses a host when any of its addresses is not
 * allowed. The check runs on the addresses the connection then uses, so a name cannot pass the
 * check and be re-pointed at an internal address before connecting (DNS rebinding). Node does
 * not call it for an IP literal: check those with `isAllowedAddress` first.
 */
export function checkedLookup(allowed: readonly RestrictedKind[]): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.find((entry) => !isAllowedAddress(entry.address, allowed));
      if (refused) return callback(new RefusedAddress(`${hostname} resolves to ${refused.address}, a ${classifyAddress(refused.address)} address`), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: typeof addresses) => void)(null, addresses);
      const first = addresses[0] as { address: string; family: number };
      callback(null, first.address, first.family);
    });
  };
}

/** Why a URL whose host is an IP literal may not be connected to (no lookup runs for it), or null. */
export function literalAddressRefusal(url: URL, allowed: readonly RestrictedKind[]): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) === 0 || isAllowedAddress(host, allowed)) return null;
  return `${host} is a ${classifyAddress(host)} address`;
}
