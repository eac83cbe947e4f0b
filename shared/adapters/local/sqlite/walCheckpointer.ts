import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { SqliteDatabase } from './database.js';

/** How often the WAL is copied back into the database: often enough that it stays a few MB. */
const CHECKPOINT_INTERVAL_MS = 200;
/** SQLite's own default, restored should the thread fail: the WAL must never grow unchecked. */
const AUTOCHECKPOINT_PAGES = 1000;

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
const timer = setInterval(() => db.pragma('wal_checkpoint(PASSIVE)'), workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Checkpoints the WAL on a thread of its own. SQLite otherwise checkpoints inside the COMMIT that
 * crosses 1,000 pages: copying those pages to the database and two fsyncs, on the event loop,
 * which holds every request for as long (the bench's event-loop delay showed it).
 */
export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<unknown>;

  constructor(db: SqliteDatabase, path: string, onError: (error: unknown) => void = () => undefined) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(THREAD, { eval: true, workerData: { driver, path, intervalMs: CHECKPOINT_INTERVAL_MS } });
    this.worker.unref(); // never what keeps a process alive
    this.exited = new Promise((resolve) => this.worker.once('exit', resolve));
    db.pragma('wal_autocheckpoint = 0');
    this.worker.once('error', (error) => {
      if (db.open) db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
      onError(error);
    });
  }

  /** Stops the thread and closes its connection (before the database's last one closes). */
  async stop(): Promise<void> {
    this.worker.ref(); // the process waits for the thread's connection to close
    this.worker.postMessage('stop'); // to a thread that has exited already, nothing
    await this.exited;
  }
}
