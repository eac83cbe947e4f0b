import { createWriteStream } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { RestrictedKind } from '../domain/networkAddress.js';
import { checkedLookup, literalAddressRefusal, RefusedAddress } from './checkedLookup.js';

/**
 * Why an input could not be fetched, in words safe to show the pusher: never a status, a port
 * or an address, which would let a job map the network behind the service.
 */
export class FetchRefused extends Error {
  override name = 'FetchRefused';
}

export interface HttpFileFetcherOptions {
  /** Address kinds besides public ones the fetcher may connect to (SLUICE_INPUT_ALLOW). */
  allowed: readonly RestrictedKind[];
  /** No byte for this long ends the fetch. */
  idleTimeoutMs: number;
  maxBytes: number;
  maxRedirects?: number;
}

/** Fetches an http(s) URL into a file. */
export type FileFetcher = (url: string, target: string, signal: AbortSignal) => Promise<void>;

const NOT_SERVED = 'the server did not send the file';

/** A server that sends nothing for this long is given up on. */
export const INPUT_IDLE_TIMEOUT_MS = 60_000;

/**
 * Fetches with node's HTTP client under the address policy webhooks follow: every hop (the URL,
 * then each redirect, at most 5) must be http(s) and resolve only to allowed addresses, and the
 * connection goes to the address that was checked (the check runs inside the lookup).
 */
export function createHttpFileFetcher(options: HttpFileFetcherOptions): FileFetcher {
  const lookup = checkedLookup(options.allowed);
  const maxRedirects = options.maxRedirects ?? 5;

  const get = (url: URL, signal: AbortSignal) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const request = send(url, { method: 'GET', headers: { 'user-agent': 'sluice-agent' }, lookup, timeout: options.idleTimeoutMs, signal }, resolve);
      request.on('timeout', () => request.destroy(new FetchRefused(`${NOT_SERVED} in time`)));
      request.on('error', (error) => reject(error instanceof RefusedAddress ? new FetchRefused('its host is not a public address') : error));
      request.end();
    });

  return async (url, target, signal) => {
    let current = new URL(url);
    for (let hop = 0; ; hop++) {
      if (current.protocol !== 'http:' && current.protocol !== 'https:') throw new FetchRefused('only http and https URLs are fetched');
      if (literalAddressRefusal(current, options.allowed)) throw new FetchRefused('its host is not a public address');
      const response = await get(current, signal).catch((error: unknown) => {
        throw error instanceof FetchRefused ? error : new FetchRefused(NOT_SERVED);
      });
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (status >= 300 && status < 400 && location) {
        response.resume();
        if (hop >= maxRedirects) throw new FetchRefused('it redirects too many times');
        current = new URL(location, current);
        continue;
      }
      if (status !== 200) {
        response.resume();
        throw new FetchRefused(NOT_SERVED);
      }
      if (Number(response.headers['content-length'] ?? 0) > options.maxBytes) {
        response.destroy();
        throw new FetchRefused(tooLarge(options.maxBytes));
      }
      await pipeline(response, sizeCap(options.maxBytes), createWriteStream(target), { signal }).catch((error: unknown) => {
        throw error instanceof FetchRefused ? error : new FetchRefused(`${NOT_SERVED} whole`);
      });
      return;
    }
  };
}

const tooLarge = (maxBytes: number) => `the file is larger than ${Math.round(maxBytes / 1024 / 1024)} MB`;

/** Passes bytes through until there are more than `maxBytes`. */
function sizeCap(maxBytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      done(seen > maxBytes ? new FetchRefused(tooLarge(maxBytes)) : null, chunk);
    },
  });
}
