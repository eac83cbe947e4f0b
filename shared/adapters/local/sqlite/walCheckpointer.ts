import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { SqliteDatabase } from './database.js';

/**
 * The pause after a pass that found new frames. A pass syncs the WAL before it copies, and the
 * service's commits, appending to the WAL meanwhile, wait for that sync: a short pause keeps
 * each sync small (200 ms of writes held the event loop 15-35 ms at a time under a push flood;
 * 20 ms, at most 12).
 */
const BUSY_INTERVAL_MS = 20;
/** The pause after a pass that found nothing new: an idle service's thread wakes rarely. */
const IDLE_INTERVAL_MS = 500;
/** SQLite's own default, restored should the thread fail: the WAL must never grow unchecked. */
const AUTOCHECKPOINT_PAGES = 1000;
/** How often, at most, the service's own connection finishes a checkpoint the thread has all but done. */
const CATCH_UP_INTERVAL_MS = 500;
/** What a WAL that has grown past this is cut back to once it restarts (SQLite's journal_size_limit). */
const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * The checkpointing thread's code (a CommonJS string: the CLI is one bundle, with no file of its
 * own to start a thread from). Its connection only checkpoints, PASSIVE: it never blocks the
 * service's writes nor its reads.
 */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 1000');
// A pause after each pass, not a fixed rate: the service's connection finishes in that pause.
let seen = -1;
let timer = setTimeout(function pass() {
  let found = false;
  try {
    const [{ log, checkpointed }] = db.pragma('wal_checkpoint(PASSIVE)');
    found = log !== seen || log !== checkpointed;
    seen = log;
  } catch {
    // A full disk (SQLITE_FULL) or an I/O error: the frames stay in the WAL, and a later pass
    // copies them once there is room. The thread must outlive it.
  }
  if (found) parentPort.postMessage('checkpointed');
  timer = setTimeout(pass, found ? workerData.busyMs : workerData.idleMs);
}, workerData.idleMs);
parentPort.on('message', () => {
  clearTimeout(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Checkpoints the WAL on a thread of its own. SQLite otherwise checkpoints inside the COMMIT that
 * crosses 1,000 pages: copying those pages to the database and two fsyncs, on the event loop,
 * which holds every request for as long (the bench's event-loop delay showed it).
 *
 * The WAL only starts over from its beginning when a write transaction begins with every frame
 * copied back. Under steady writes the thread never sees that: commits land while it copies. So
 * the service's connection, right after a commit that follows one of the thread's passes, copies
 * the few frames written since (`afterCommit`); its next write then restarts the WAL. Without
 * this the WAL grew by the whole of a sustained load (700 MB in a 20,000-job drain).
 */
export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<unknown>;
  /** The thread finished a pass since the service's connection last caught up. */
  private passed = false;
  private caughtUpAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: SqliteDatabase,
    path: string,
    onError: (error: unknown) => void = () => undefined,
  ) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(THREAD, { eval: true, workerData: { driver, path, busyMs: BUSY_INTERVAL_MS, idleMs: IDLE_INTERVAL_MS } });
    this.worker.unref(); // never what keeps a process alive
    this.exited = new Promise((resolve) => this.worker.once('exit', resolve));
    db.pragma('wal_autocheckpoint = 0');
    db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    this.worker.on('message', () => (this.passed = true));
    this.worker.once('error', (error) => {
      if (db.open) db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
      onError(error);
    });
  }

  /** After a COMMIT, with no write transaction open: now and then, the rest of the thread's checkpoint. */
  afterCommit(): void {
    if (!this.passed || performance.now() - this.caughtUpAt < CATCH_UP_INTERVAL_MS) return;
    this.passed = false;
    this.caughtUpAt = performance.now();
    try {
      // PASSIVE: while the thread is inside a pass it answers busy at once, and the next one tries.
      this.db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // An I/O error here is the next commit's to report; the thread's passes go on.
    }
  }

  /** Stops the thread and closes its connection (before the database's last one closes). */
  async stop(): Promise<void> {
    this.worker.ref(); // the process waits for the thread's connection to close
    this.worker.postMessage('stop'); // to a thread that has exited already, nothing
    await this.exited;
  }
}
