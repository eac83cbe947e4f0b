import type { Store } from '../../../ports/store.js';
import { memoryPageEnds } from '../memoryPageEnds.js';
import { sqliteApiKeyStore } from './apiKeyStore.js';
import { openDatabase } from './database.js';
import { sqliteDeliveryStore } from './deliveryStore.js';
import { sqliteFunctionStore } from './functionStore.js';
import { COMMIT_WINDOW_MS, GroupCommit } from './groupCommit.js';
import { sqliteJobStore } from './jobStore.js';
import { sqliteLogStore } from './logStore.js';
import { sqliteOrganizationStore } from './organizationStore.js';
import { RememberedJobs } from './rememberedJobs.js';
import { sqliteIdempotencyKeyStore } from './idempotencyKeyStore.js';
import { sqliteRetention, type SqliteRetention } from './retentionStore.js';
import { sqliteUsageStore } from './usageStore.js';
import { sqliteVersionStore } from './versionStore.js';
import { WalCheckpointer } from './walCheckpointer.js';

/** The store, and what only the local mode does with it: delete ended jobs past their retention. */
export interface SqliteStore extends Store {
  retention: SqliteRetention;
}

/**
 * The local mode's store: one SQLite file (or `:memory:`), writes group-committed per event-loop
 * turn. `onCheckpointError` hears of a checkpoint thread that died (SQLite's own checkpoints
 * take over, on the event loop).
 */
export function createSqliteStore(path: string, onCheckpointError?: (error: unknown) => void): SqliteStore {
  const db = openDatabase(path);
  const checkpointer = path === ':memory:' ? null : new WalCheckpointer(db, path, onCheckpointError);
  const writes = new GroupCommit(db, COMMIT_WINDOW_MS, () => checkpointer?.afterCommit());
  // Shared: retention's deletes forget the job store's records of the jobs they delete.
  const remembered = new RememberedJobs();
  return {
    organizations: sqliteOrganizationStore(db, writes),
    apiKeys: sqliteApiKeyStore(db, writes),
    functions: sqliteFunctionStore(db, writes),
    versions: sqliteVersionStore(db, writes),
    logs: sqliteLogStore(db, writes),
    jobs: sqliteJobStore(db, writes, remembered),
    deliveries: sqliteDeliveryStore(db, writes),
    usage: sqliteUsageStore(db, writes),
    idempotencyKeys: sqliteIdempotencyKeyStore(db, writes),
    // A read aid of this one process, kept in its memory.
    pageEnds: memoryPageEnds(),
    retention: sqliteRetention(db, writes, remembered),
    durable: () => writes.durable(),
    async close() {
      writes.flush();
      await checkpointer?.stop();
      db.close();
    },
  };
}
