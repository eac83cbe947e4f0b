import { hasMalformedPercentEncoding } from './percentEncoding.js';

/** A request's path and query (`?a=1`, or empty), as `new URL` reads them. */
export interface RequestTarget {
  pathname: string;
  search: string;
}

/**
 * What a plain target holds: no percent-encoding, no dot segment (`/./`, `/../`), nothing URL
 * parsing would encode or drop (spaces, quotes, `#`, non-ASCII): `new URL` would return it as is.
 */
const PLAIN_PATH = /^\/(?!\/)[\w\-.~!$&'()*+,;=:@/]*$/;
const PLAIN_QUERY = /^[\w\-.~!$&()*+,;=:@/?]*$/;

/**
 * The request's path and query, or null when it cannot be read or is not percent-encoded
 * properly. The plain targets nearly every request has are split as they are; the rest go
 * through URL parsing (which resolves dot segments and encodes what needs it).
 */
export function parseTarget(target: string): RequestTarget | null {
  const mark = target.indexOf('?');
  const pathname = mark < 0 ? target : target.slice(0, mark);
  const query = mark < 0 ? '' : target.slice(mark + 1);
  if (PLAIN_PATH.test(pathname) && !pathname.includes('/.') && PLAIN_QUERY.test(query)) return { pathname, search: query && `?${query}` };
  let url: URL;
  try {
    url = new URL(target, 'http://local');
  } catch {
    return null;
  }
  return hasMalformedPercentEncoding(url) ? null : { pathname: url.pathname, search: url.search };
}
