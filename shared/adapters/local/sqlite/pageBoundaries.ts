/** Where a newest-first job list's page ended: the sort key of its last row. */
export interface ListKey {
  createdAt: number;
  id: string;
}

interface PageEnd extends ListKey {
  /** When the page was read (milliseconds). */
  readAt: number;
}

/** How many page ends are remembered; a walk needs one at a time, so this serves many clients. */
const REMEMBERED = 4096;
/** How long a page end is used: a walk asks for its next page at once; a later reader gets OFFSET. */
export const PAGE_END_KEPT_MS = 60_000;

/**
 * The API pages with `offset` (Sieve's interface), and OFFSET costs every row skipped. A client
 * walking a list asks for the offset the previous page handed it, so the list remembers where
 * each page it served in the last minute ended; a request for that offset resumes after that
 * row (a keyset seek, O(page)) instead of counting rows again. Jobs pushed meanwhile then shift
 * nothing: the walk goes on where it was, with no row twice. An offset it does not remember is
 * counted.
 */
export class PageBoundaries {
  private readonly ends = new Map<string, PageEnd>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The row after which the page at `offset` of this list starts, if a page ended there lately. */
  find(list: string, offset: number): ListKey | undefined {
    const key = `${list}\u0000${offset}`;
    const end = this.ends.get(key);
    if (!end) return undefined;
    this.ends.delete(key);
    if (this.now() - end.readAt > PAGE_END_KEPT_MS) return undefined;
    // Used again: kept as the newest.
    this.ends.set(key, end);
    return { createdAt: end.createdAt, id: end.id };
  }

  /**
   * Remembers the ends of a page read at `offset`: after its last row, and after the one
   * before it (the routes read one row past the page to know whether another follows).
   */
  remember(list: string, offset: number, rows: readonly ListKey[]): void {
    const readAt = this.now();
    for (let count = Math.max(1, rows.length - 1); count <= rows.length; count++) {
      const last = rows[count - 1] as ListKey;
      this.ends.set(`${list}\u0000${offset + count}`, { createdAt: last.createdAt, id: last.id, readAt });
    }
    while (this.ends.size > REMEMBERED) this.ends.delete(this.ends.keys().next().value as string);
  }
}
