/** Where a newest-first job list's page ended: the sort key of its last row. */
export interface ListKey {
  createdAt: number;
  id: string;
}

/** How many page ends are remembered; a walk needs one at a time, so this serves many clients. */
const REMEMBERED = 4096;

/**
 * The API pages with `offset` (Sieve's interface), and OFFSET costs every row skipped. A client
 * walking a list asks for the offset the previous page handed it, so the list remembers where
 * each page it served ended; a request for that offset resumes after that row (a keyset seek,
 * O(page)) instead of counting rows again. Jobs pushed meanwhile then shift nothing: the walk
 * goes on where it was, with no row twice. An offset it does not remember is counted.
 */
export class PageBoundaries {
  private readonly ends = new Map<string, ListKey>();

  /** The row after which the page at `offset` of this list starts, if a page ended there. */
  find(list: string, offset: number): ListKey | undefined {
    const key = `${list}\u0000${offset}`;
    const end = this.ends.get(key);
    if (end) {
      // Used again: kept as the newest.
      this.ends.delete(key);
      this.ends.set(key, end);
    }
    return end;
  }

  /**
   * Remembers the ends of a page read at `offset`: after its last row, and after the one
   * before it (the routes read one row past the page to know whether another follows).
   */
  remember(list: string, offset: number, rows: readonly ListKey[]): void {
    for (let count = Math.max(1, rows.length - 1); count <= rows.length; count++) {
      const last = rows[count - 1] as ListKey;
      this.ends.set(`${list}\u0000${offset + count}`, { createdAt: last.createdAt, id: last.id });
    }
    while (this.ends.size > REMEMBERED) this.ends.delete(this.ends.keys().next().value as string);
  }
}
