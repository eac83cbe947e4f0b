import { badRequest, type ServiceError } from './errors.js';

/** Where a newest-first job list's page ended: the sort key of its last job. */
export interface ListKey {
  createdAt: number;
  id: string;
}

/**
 * The deepest offset a job list counts. Counting costs every job skipped (an index walk in
 * SQLite, read units in DynamoDB), so past this an offset is answered only where a page of
 * the same list ended there lately: a walk by next_offset, which resumes after that page's
 * last job at the cost of one page.
 */
export const COUNTED_OFFSET_LIMIT = 2_000;

/** How long a page end is kept for the walk that was handed it, past COUNTED_OFFSET_LIMIT. */
export const PAGE_END_KEPT_S = 3_600;

/**
 * Up to COUNTED_OFFSET_LIMIT, a page end is followed only this fresh, at the pace of a walk: a
 * client asking for offset 20 later means the 21st job now, not where someone's page ended.
 */
export const WALK_PAGE_END_S = 60;

/** The answer to an offset past the limit that no page handed out: the way to get there instead. */
export function offsetNotHandedOut(offset: number, nearest: number | undefined): ServiceError {
  const from = nearest === undefined ? 'from offset 0' : `from offset ${nearest}, the nearest this list handed out below it, or from 0`;
  return badRequest(
    `offset ${offset} is past ${COUNTED_OFFSET_LIMIT} and no page of this list handed it out as next_offset in the last hour. ` +
      `Walk the list by each page's next_offset (${from}), or narrow it with status.`,
  );
}
