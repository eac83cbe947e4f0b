import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import * as tar from 'tar';
import type { BundleLimits } from '../domain/bundleLimits.js';
import { BundleTally } from '../domain/bundleLimits.js';
import { unprocessable } from '../domain/errors.js';

type Parser = tar.Parser | tar.Unpack;

/**
 * Reads a gzipped tar bundle as a stream, entry by entry: nothing is held whole in memory, and
 * the first entry that breaks a limit or a rule (BundleTally) stops the reading at once, before
 * its bytes are inflated. Rejects with that rule's 413 or 422, or a 422 for a bundle that is
 * not a gzipped tar.
 */
async function readBundle(
  source: AsyncIterable<Uint8Array>,
  limits: BundleLimits,
  parserFor: (admit: (entry: tar.ReadEntry) => boolean) => Parser,
): Promise<void> {
  const tally = new BundleTally(limits);
  let refusal: Error | null = null;
  const parser = parserFor((entry) => {
    if (refusal) return false;
    try {
      tally.admit({ path: entry.path, type: entry.type, size: entry.size ?? 0 });
      return true;
    } catch (error) {
      refusal = error as Error;
      parser.abort(refusal);
      return false;
    }
  });
  // The tally counts what the headers declare; what inflates beside it (data after the end of
  // the archive, which the parser would otherwise buffer) is bounded here, and dropped.
  let inflated = 0;
  let archiveEnded = false;
  parser.on('eof', () => (archiveEnded = true));
  const bounded = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      inflated += chunk.length;
      if (inflated > tally.maxInflatedBytes()) {
        refusal ??= tally.unpackedTooLarge();
        done(refusal);
      } else done(null, archiveEnded ? undefined : chunk);
    },
  });
  try {
    await pipeline(source, createGunzip(), bounded, parser);
  } catch (error) {
    throw refusal ?? unprocessable(`The bundle is not a gzipped tar archive: ${(error as Error).message}`);
  }
  if (refusal) throw refusal;
}

/** Reads the bundle through without writing anything, to refuse a bad one before a deploy stores it. */
export function checkBundle(source: AsyncIterable<Uint8Array>, limits: BundleLimits): Promise<void> {
  return readBundle(source, limits, (admit) => new tar.Parser({ strict: true, filter: (_path, entry) => (admit(entry as tar.ReadEntry), false) }));
}

/**
 * Unpacks the bundle into `folder` (which must exist), under the same limits. On a refusal
 * the folder holds whatever was written before it: the caller removes it.
 */
export function extractBundle(source: AsyncIterable<Uint8Array>, folder: string, limits: BundleLimits): Promise<void> {
  return readBundle(
    source,
    limits,
    (admit) => new tar.Unpack({ cwd: folder, strict: true, preservePaths: false, filter: (_path, entry) => admit(entry as tar.ReadEntry) }),
  );
}
