/**
 * Parsed records of one table, remembered by the query that read them (a miss, null, too), and
 * forgotten whole whenever the table is written, before and again after the commit. Right
 * because this process is the only writer of the tables it caches (one service per data
 * directory; `sluice keys` writes keys only). Records are frozen: a caller that changed one
 * would change it for every later reader. Functions and versions are read on every push and
 * written at deploys and builds only.
 */
export class RecordCache<V extends object> {
  private readonly entries = new Map<string, V | null>();

  constructor(private readonly capacity = 10_000) {}

  read(key: string, load: () => V | null): V | null {
    const cached = this.entries.get(key);
    if (cached !== undefined) return cached;
    const value = load();
    if (this.entries.size >= this.capacity) this.entries.clear();
    this.entries.set(key, value === null ? null : Object.freeze(value));
    return value;
  }

  /** Runs a write of the table, forgetting everything before it and once it is committed (or failed). */
  async writing<T>(write: () => Promise<T>): Promise<T> {
    this.entries.clear();
    try {
      return await write();
    } finally {
      this.entries.clear();
    }
  }
}
