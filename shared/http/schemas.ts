import { z } from 'zod';
import { badRequest } from '../domain/errors.js';
import { parsePosixTimestamp } from '../domain/time.js';

/** Skips that many of a job's outputs (await, get job). */
export const outputOffsetQuery = {
  offset: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0).describe('How many of the job’s outputs to skip.'),
};

/** Default page size is the interface's 500; more than 1000 at once is refused. */
export const MAX_PAGE_SIZE = 1000;

export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(500).describe('How many to answer at most.'),
  // Past 2^53 a number is not exact, and DynamoDB's client refuses it.
  offset: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0).describe('How many to skip.'),
};

export const truncateQuery = { truncate: z.stringbool().default(false).describe('Answer only each function’s name and owner.') };

export const functionPath = z.object({ owner_name: z.string().min(1), function_name: z.string().min(1) });
export const versionPath = functionPath.extend({ version_slug: z.string().min(1) });

/** A POSIX timestamp parameter, read by posixTimestamps: Sieve answers a bad one 400, not 422. */
export const posixTimestamp = z.string().optional().describe('Float seconds or integer nanoseconds since the epoch.');

/**
 * POSIX timestamps (float seconds or integer nanoseconds) as nanoseconds; empty or `null` is
 * absent (the parameters are nullable). One that is not a timestamp is Sieve's
 * 400 `Invalid timestamps provided.`
 */
export function posixTimestamps<K extends string>(query: Partial<Record<K, string | undefined>>, names: readonly K[]): Partial<Record<K, bigint>> {
  const values: Partial<Record<K, bigint>> = {};
  for (const name of names) {
    const text = query[name];
    if (text === undefined || text === '' || text === 'null') continue;
    const value = parsePosixTimestamp(text);
    if (value === null) throw badRequest('Invalid timestamps provided.');
    values[name] = value;
  }
  return values;
}

/** Fetch one more than the page holds: if it comes back, there is a next page. */
export function pageWithNext<T>(rows: T[], limit: number, offset: number): { data: T[]; next_offset: number } {
  return rows.length > limit ? { data: rows.slice(0, limit), next_offset: offset + limit } : { data: rows, next_offset: -1 };
}

/** Server-Sent Events' resume header: the `id:` of the last event the client received. */
export const lastEventIdHeader = z.object({
  'last-event-id': z.string().max(200).optional().describe('The `id` of the last event seen: the stream resumes after it.'),
});
