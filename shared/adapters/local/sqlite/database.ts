import { chmodSync, closeSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { LIST_INLINE_BYTES } from '../../../domain/listPreview.js';

export type SqliteDatabase = Database.Database;

/**
 * Schema migrations, applied in order; `PRAGMA user_version` records how many ran.
 * Append only: a released migration is never edited.
 */
const MIGRATIONS: string[] = [
  `
  CREATE TABLE organizations (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    prefix TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
  );
  CREATE INDEX api_keys_by_organization ON api_keys (organization_id, created_at);
  CREATE TABLE functions (
    id TEXT PRIMARY KEY,
    owner_name TEXT NOT NULL,
    name TEXT NOT NULL,
    data TEXT NOT NULL,
    UNIQUE (owner_name, name)
  );
  CREATE TABLE versions (
    id TEXT PRIMARY KEY,
    function_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    build_status TEXT NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX versions_by_function ON versions (function_id, created_at);
  CREATE INDEX versions_by_build_status ON versions (build_status);
  CREATE TABLE logs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    stream TEXT NOT NULL,
    organization_id TEXT NOT NULL,
    function_id TEXT NOT NULL,
    job_id TEXT NOT NULL,
    run_id TEXT NOT NULL,
    stage TEXT NOT NULL,
    time_ns INTEGER NOT NULL,
    message TEXT NOT NULL
  );
  CREATE INDEX logs_by_stream ON logs (stream, time_ns);
  CREATE INDEX logs_by_organization ON logs (organization_id, time_ns);
  `,
  // Jobs: the columns that lists filter and order by, the record itself as JSON. Every list
  // is of one organization's jobs, newest first; an index ending in (created_at, id) serves
  // that order by scanning backwards. Only the status index changes when a job moves.
  `
  CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    function_id TEXT NOT NULL,
    version_id TEXT NOT NULL,
    organization_id TEXT NOT NULL,
    parent_job_id TEXT,
    status TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX jobs_by_function ON jobs (function_id, organization_id, created_at, id);
  CREATE INDEX jobs_by_version ON jobs (version_id, organization_id, created_at, id);
  CREATE INDEX jobs_by_organization ON jobs (organization_id, created_at, id);
  CREATE INDEX jobs_by_parent ON jobs (parent_job_id, created_at, id) WHERE parent_job_id IS NOT NULL;
  CREATE INDEX jobs_by_status ON jobs (status, created_at, id);
  CREATE TABLE job_outputs (
    job_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (job_id, idx)
  );
  `,
  // Each organization's webhook signing secret; NULL until first made.
  `
  ALTER TABLE organizations ADD COLUMN webhook_secret TEXT;
  `,
  // Webhook deliveries: the columns that lists filter and order by, the record itself as JSON.
  // Only pending deliveries are in the pending index, so it stays as small as the backlog.
  `
  CREATE TABLE webhook_deliveries (
    id TEXT PRIMARY KEY,
    job_id TEXT NOT NULL,
    url TEXT NOT NULL,
    sequence INTEGER NOT NULL,
    state TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX webhook_deliveries_by_job ON webhook_deliveries (job_id, url, sequence, id);
  CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (created_at, sequence, id) WHERE state = 'pending';
  `,
  // Usage: one row per (organization, version, billing class, hour) summing its compute time,
  // and one marker per job already counted, so that a job is counted exactly once.
  `
  CREATE TABLE usage_jobs (
    job_id TEXT PRIMARY KEY
  ) WITHOUT ROWID;
  CREATE TABLE usage_hours (
    organization_id TEXT NOT NULL,
    version_id TEXT NOT NULL,
    billing_class TEXT NOT NULL,
    hour INTEGER NOT NULL,
    function_id TEXT NOT NULL,
    compute_seconds REAL NOT NULL,
    cost_dollars REAL NOT NULL,
    PRIMARY KEY (organization_id, version_id, billing_class, hour)
  ) WITHOUT ROWID;
  CREATE INDEX usage_hours_by_organization ON usage_hours (organization_id, hour);
  `,
  // The jobs that wait for a version's build, released when it ends: only queued jobs are in it.
  `
  CREATE INDEX jobs_queued_by_version ON jobs (version_id, created_at, id) WHERE status = 'queued';
  `,
  // An organization's unfinished jobs, counted for its concurrency: only those are in it.
  `
  CREATE INDEX jobs_active_by_organization ON jobs (organization_id, status) WHERE status IN ('queued', 'processing');
  `,
  // What list pages read: a job's inputs move out of data into the last column, beside their
  // list preview (listPreview.ts; a row migrated with inputs over the inline size shows them all
  // null), so a list reads the preview and never the inputs. Outputs get their data's size and the rest of the output
  // (head) in columns before the data: a list selects the data of small ones only.
  `
  ALTER TABLE jobs ADD COLUMN inputs_preview TEXT NOT NULL DEFAULT '{}';
  ALTER TABLE jobs ADD COLUMN inputs TEXT NOT NULL DEFAULT '{}';
  UPDATE jobs SET
    inputs_preview = CASE
      WHEN length(CAST(data -> '$.inputs' AS BLOB)) <= ${LIST_INLINE_BYTES} THEN data -> '$.inputs'
      ELSE (SELECT json_group_object(key, json('null')) FROM json_each(jobs.data, '$.inputs'))
    END,
    inputs = data -> '$.inputs',
    data = json_remove(data, '$.inputs');
  CREATE TABLE job_outputs_sized (
    job_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    head TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (job_id, idx)
  );
  INSERT INTO job_outputs_sized (job_id, idx, bytes, head, data)
    SELECT job_id, idx, length(CAST(coalesce(data -> '$.data', 'null') AS BLOB)), json_remove(data, '$.data'), data FROM job_outputs;
  DROP TABLE job_outputs;
  ALTER TABLE job_outputs_sized RENAME TO job_outputs;
  `,
  // Pushes' Idempotency-Keys; expired rows are replaced by the next claim of the key, and
  // swept by expires_at.
  `
  CREATE TABLE idempotency_keys (
    organization_id TEXT NOT NULL,
    key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    job_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (organization_id, key)
  );
  CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
  `,
  // Every list reads an index that serves its filter and its order exactly, so a page costs its
  // own rows whatever the history (docs/architecture/storage.md, "Storage layout"). A status filter gets
  // the status before created_at. The status-only index becomes two partial ones: the active jobs
  // (what start-up and the sweeper read) and the finished ones (what retention deletes, oldest
  // first). A move rewrites the two status-filter indexes' entries (and enters or leaves the
  // partial ones); the organization's active counts are read from jobs_by_organization_status.
  // A function's versions list by (created_at, id) too.
  `
  CREATE INDEX jobs_by_function_status ON jobs (function_id, organization_id, status, created_at, id);
  CREATE INDEX jobs_by_organization_status ON jobs (organization_id, status, created_at, id);
  CREATE INDEX jobs_active ON jobs (status, created_at, id) WHERE status IN ('queued', 'processing');
  CREATE INDEX jobs_finished ON jobs (created_at, id) WHERE status IN ('finished', 'error', 'cancelled');
  DROP INDEX jobs_by_status;
  DROP INDEX jobs_active_by_organization;
  CREATE INDEX versions_by_function_newest ON versions (function_id, created_at, id);
  DROP INDEX versions_by_function;
  `,
  // Usage by day beside usage by hour, written together: a month's totals read its whole days
  // (at most 31 rows per version and class) and the hours at its edges, not its 744 hours.
  // Filled from the hour rows of an older database.
  `
  CREATE TABLE usage_days (
    organization_id TEXT NOT NULL,
    version_id TEXT NOT NULL,
    billing_class TEXT NOT NULL,
    day INTEGER NOT NULL,
    function_id TEXT NOT NULL,
    compute_seconds REAL NOT NULL,
    cost_dollars REAL NOT NULL,
    PRIMARY KEY (organization_id, version_id, billing_class, day)
  ) WITHOUT ROWID;
  CREATE INDEX usage_days_by_organization ON usage_days (organization_id, day);
  INSERT INTO usage_days (organization_id, version_id, billing_class, day, function_id, compute_seconds, cost_dollars)
    SELECT organization_id, version_id, billing_class, hour - hour % 86400, MAX(function_id), SUM(compute_seconds), SUM(cost_dollars)
    FROM usage_hours GROUP BY organization_id, version_id, billing_class, hour - hour % 86400;
  `,
  // A function's and an organization's jobs of every status are read from their status indexes,
  // one range per status merged in list order (statusIndexes.ts, inEveryStatus), so the indexes
  // without the status go: each cost every push two index writes, and every commit about a fifth
  // of the pages it wrote.
  `
  DROP INDEX jobs_by_function;
  DROP INDEX jobs_by_organization;
  `,
  // Retention reads the ended jobs from jobs_by_organization_status, one range per organization
  // and ended status (retentionStore.ts): the index of ended jobs by time goes, which cost every
  // job's end an index write and every commit about three pages.
  `
  DROP INDEX jobs_finished;
  `,
  // The operator's limits of an organization (JSON; NULL: the defaults) and the month whose
  // budget warning was sent.
  `
  ALTER TABLE organizations ADD COLUMN limits TEXT;
  ALTER TABLE organizations ADD COLUMN budget_warned_month TEXT;
  `,
];

/**
 * Opens (creating if needed) the database in WAL mode and brings its schema up to date (or to
 * the first `migrations`: a test's database as an older release left it).
 */
export function openDatabase(path: string, migrations = MIGRATIONS.length): SqliteDatabase {
  if (path !== ':memory:') ownerOnly(path);
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  // NORMAL is durable across process crashes in WAL mode; only a power loss can drop the last commits.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  migrate(db, migrations);
  return db;
}

/** How many migrations the schema has: the last is this release's. */
export const SCHEMA_VERSION = MIGRATIONS.length;
/** The schema as the release before list previews (migration 8) left it: what the migration test starts from. */
export const SCHEMA_BEFORE_LIST_PREVIEWS = 7;
/** The schema as the release before usage by day (migration 11) left it: what the usage migration test starts from. */
export const SCHEMA_BEFORE_USAGE_DAYS = 10;

function migrate(db: SqliteDatabase, migrations: number): void {
  const applied = db.pragma('user_version', { simple: true }) as number;
  for (let index = applied; index < migrations; index++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[index] as string);
      db.pragma(`user_version = ${index + 1}`);
    })();
  }
}

/**
 * The database holds every organization's webhook secret, inputs and outputs: only the service's
 * user may read it, whatever the umask or the data directory's mode. SQLite gives its -wal and
 * -shm files the database file's mode.
 */
function ownerOnly(path: string): void {
  closeSync(openSync(path, 'a', 0o600));
  chmodSync(path, 0o600);
}
