/**
 * Reads a deploy bundle (a gzipped tar) through once, as a stream, and rejects with a 413 or
 * 422 ServiceError at the first entry past the bundle limits, a link, or a path outside the
 * function's folder. Resolves when the whole bundle is acceptable.
 */
export type BundleChecker = (bundle: AsyncIterable<Uint8Array>) => Promise<void>;
