import type { WriteOptions } from '../../../ports/store.js';
import type { SqliteDatabase } from './database.js';

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * A commit that carried at least this many writes says they come in a crowd: the next one waits
 * out COMMIT_WINDOW_MS from it, gathering more. A lone write (a quiet service) never waits.
 */
export const CROWD_WRITES = 8;
/**
 * Jobs written close together touch the same pages (the newest end of each index): a commit of
 * many costs little more than a commit of one, so spacing commits under load cuts the pages
 * written per job, for a few milliseconds on an acknowledgement.
 */
export const COMMIT_WINDOW_MS = 4;

/**
 * Group commit: the writes made in one turn of the event loop share one transaction, committed
 * at the end of that turn (under load, at most every COMMIT_WINDOW_MS), and each write's promise
 * resolves only once that COMMIT succeeded. A commit costs far more than a statement, so this
 * multiplies write throughput, while no caller is ever told of a write that is not durable.
 */
export class GroupCommit {
  private waiting: Waiter[] = [];
  /** Writes in the open transaction, and what the last commit carried, and when it was. */
  private writes = 0;
  private lastWrites = 0;
  private lastCommitAt = Number.NEGATIVE_INFINITY;
  private readonly rollbackListeners: (() => void)[] = [];
  private readonly beforeCommitListeners: (() => void)[] = [];
  /** Why the open transaction is to be rolled back at its commit (SQLite rolled back the one before it). */
  private doomed: { error: unknown } | null = null;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly windowMs = COMMIT_WINDOW_MS,
    /** Called after each successful COMMIT, outside any transaction (the WAL checkpointer's catch-up). */
    private readonly afterCommit: () => void = () => undefined,
  ) {}

  /** Runs `work` (synchronous statements) inside the current turn's transaction; resolves once it is committed. */
  write<T>(work: () => T): Promise<T> {
    let value: T;
    try {
      value = this.writeDeferred(work);
    } catch (error) {
      // A failed statement is undone alone; the turn's other writes still commit.
      return Promise.reject(error);
    }
    return this.durable().then(() => value);
  }

  /** `write`, or `writeDeferred` where the caller waits for durability itself (WriteOptions.deferDurability). */
  writeAs<T>(work: () => T, options: WriteOptions | undefined): Promise<T> {
    if (!options?.deferDurability) return this.write(work);
    try {
      return Promise.resolve(this.writeDeferred(work));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Runs `work` inside the current turn's transaction and returns its value at once, before the
   * commit: for a write whose loss in a crash the next start repairs. A failed commit is told to
   * the turn's waiters (`durable`), not here.
   */
  writeDeferred<T>(work: () => T): T {
    if (!this.db.inTransaction) {
      this.db.exec('BEGIN IMMEDIATE');
      const wait = this.lastWrites >= CROWD_WRITES ? this.lastCommitAt + this.windowMs - performance.now() : 0;
      if (wait > 0) setTimeout(() => this.commit(), wait);
      else setImmediate(() => this.commit());
    }
    this.writes += 1;
    try {
      return work();
    } catch (error) {
      if (!this.db.inTransaction) this.lostTransaction(error);
      throw error;
    }
  }

  /**
   * Some errors (SQLITE_FULL among them) make SQLite roll back the whole transaction, not the
   * statement alone: the turn's earlier writes are gone too, yet their callers may still wait on
   * `durable` this turn. So a transaction is begun again, to be rolled back at the turn's commit:
   * every write of this turn, and every wait for one, fails.
   */
  private lostTransaction(error: unknown): void {
    for (const listener of this.rollbackListeners) listener();
    this.db.exec('BEGIN IMMEDIATE');
    this.doomed = { error };
  }

  /** Resolves once every write made so far is committed (at once when none is pending). */
  durable(): Promise<void> {
    if (!this.db.inTransaction) return Promise.resolve();
    return new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  /** Called after a failed COMMIT rolled the turn's writes back (a cache of what they wrote is wrong now). */
  onRollback(listener: () => void): void {
    this.rollbackListeners.push(listener);
  }

  /** Called inside each transaction just before its COMMIT, to write what was kept back until then; a throw fails the commit. */
  beforeCommit(listener: () => void): void {
    this.beforeCommitListeners.push(listener);
  }

  /** Runs `read` once what the open transaction kept back (beforeCommit) is written: it sees every write made so far. */
  current<T>(read: () => T): T {
    if (this.db.inTransaction) this.writeKeptBack();
    return read();
  }

  private writeKeptBack(): void {
    for (const listener of this.beforeCommitListeners) listener();
  }

  /** Commits at once (before closing the database). */
  flush(): void {
    if (this.db.inTransaction) this.commit();
  }

  private commit(): void {
    const waiting = this.waiting;
    this.waiting = [];
    this.lastWrites = this.writes;
    this.writes = 0;
    this.lastCommitAt = performance.now();
    if (!this.db.inTransaction) return;
    try {
      if (this.doomed) throw this.doomed.error;
      this.writeKeptBack();
      this.db.exec('COMMIT');
    } catch (error) {
      this.doomed = null;
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      for (const listener of this.rollbackListeners) listener();
      for (const waiter of waiting) waiter.reject(error);
      return;
    }
    for (const waiter of waiting) waiter.resolve();
    this.afterCommit();
  }
}
