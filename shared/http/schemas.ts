import { z } from 'zod';
import { parsePosixTimestamp } from '../domain/time.js';

/** Default page size is the interface's 500; more than 1000 at once is refused. */
export const MAX_PAGE_SIZE = 1000;

export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(500),
  offset: z.coerce.number().int().min(0).default(0),
};

export const truncateQuery = { truncate: z.stringbool().default(false) };

export const functionPath = z.object({ owner_name: z.string().min(1), function_name: z.string().min(1) });
export const versionPath = functionPath.extend({ version_slug: z.string().min(1) });

/** A POSIX timestamp as float seconds or integer nanoseconds, read as nanoseconds. */
export const posixTimestamp = z.string().transform((text, ctx) => {
  const value = parsePosixTimestamp(text);
  if (value === null) {
    ctx.addIssue({ code: 'custom', message: 'must be a POSIX timestamp: float seconds or integer nanoseconds' });
    return z.NEVER;
  }
  return value;
});

/** Fetch one more than the page holds: if it comes back, there is a next page. */
export function pageWithNext<T>(rows: T[], limit: number, offset: number): { data: T[]; next_offset: number } {
  return rows.length > limit ? { data: rows.slice(0, limit), next_offset: offset + limit } : { data: rows, next_offset: -1 };
}
