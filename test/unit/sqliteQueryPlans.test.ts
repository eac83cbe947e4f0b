import { describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../shared/adapters/local/sqlite/database.js';
import { GroupCommit } from '../../shared/adapters/local/sqlite/groupCommit.js';
import { sqliteApiKeyStore } from '../../shared/adapters/local/sqlite/apiKeyStore.js';
import { sqliteDeliveryStore } from '../../shared/adapters/local/sqlite/deliveryStore.js';
import { sqliteFunctionStore } from '../../shared/adapters/local/sqlite/functionStore.js';
import { sqliteJobStore } from '../../shared/adapters/local/sqlite/jobStore.js';
import { sqliteLogStore } from '../../shared/adapters/local/sqlite/logStore.js';
import { sqliteOrganizationStore } from '../../shared/adapters/local/sqlite/organizationStore.js';
import { sqliteRetention } from '../../shared/adapters/local/sqlite/retentionStore.js';
import { sqliteUsageStore } from '../../shared/adapters/local/sqlite/usageStore.js';
import { sqliteVersionStore } from '../../shared/adapters/local/sqlite/versionStore.js';

/** Tables that grow with the history: a statement on them must never read them whole. */
const HISTORY = ['jobs', 'job_outputs', 'logs', 'webhook_deliveries', 'usage_jobs', 'usage_hours'];
/** Partial indexes that hold unfinished work only (a backlog, not the history): reading one whole is fine. */
const BACKLOG_INDEXES = ['jobs_active', 'jobs_queued_by_version', 'webhook_deliveries_pending'];
/** What lists pages: the history, and a function's versions. */
const PAGED = [...HISTORY, 'versions'];

/**
 * Statements read at start-up or by the sweeper only, whose result is whole and small, which may
 * sort: active jobs of two statuses at once, the pending deliveries, versions by build status.
 */
const SORTS_ALLOWED = [
  /status IN \('queued', 'processing'\) AND status IN \('queued', 'processing'\)/,
  /FROM webhook_deliveries WHERE state = 'pending'/,
  /FROM versions WHERE build_status IN/,
];

const mainTable = (source: string) => /\bFROM (\w+)/i.exec(source)?.[1] ?? /^\s*UPDATE (\w+)/i.exec(source)?.[1] ?? '';

/** Every statement the SQLite stores prepare, recorded as each store is made and used. */
async function preparedStatements(): Promise<{ db: SqliteDatabase; statements: string[] }> {
  const db = openDatabase(':memory:');
  const statements: string[] = [];
  const recording = new Proxy(db, {
    get(target, property) {
      if (property === 'prepare') {
        return (source: string) => {
          statements.push(source);
          return target.prepare(source);
        };
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  const writes = new GroupCommit(db);
  for (const make of [sqliteOrganizationStore, sqliteApiKeyStore, sqliteFunctionStore, sqliteLogStore, sqliteDeliveryStore, sqliteUsageStore])
    make(recording, writes);
  const versions = sqliteVersionStore(recording, writes);
  const jobs = sqliteJobStore(recording, writes);
  sqliteRetention(recording, writes);
  // Statements made on first use: the sets of statuses start-up asks for.
  for (const statuses of [['queued'], ['processing'], ['queued', 'processing']] as const) await jobs.listByStatus(statuses);
  await versions.listByBuildStatus(['ready']);
  await versions.listByBuildStatus(['queued', 'building'], 1);
  return { db, statements: [...new Set(statements)] };
}

/** The plan's lines for a statement, its parameters bound to null. */
function planOf(db: SqliteDatabase, source: string): string[] {
  const parameters = (source.match(/\?/g) ?? []).map(() => null);
  return db
    .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${source}`)
    .all(...parameters)
    .map((row) => row.detail);
}

describe('SQLite query plans (no ANALYZE is ever run, so these are the plans at any size)', async () => {
  const { db, statements } = await preparedStatements();
  const reads = statements.filter((source) => /^\s*(SELECT|DELETE|UPDATE)/i.test(source) && /\bWHERE\b/i.test(source));

  it('covers every list and read of the history', () => {
    const tables = HISTORY.filter((table) => reads.some((source) => new RegExp(`\\b${table}\\b`).test(source)));
    expect(tables).toEqual(HISTORY);
    expect(reads.length).toBeGreaterThan(30);
  });

  it.each(reads.map((source) => [source]))('%s reads an index, never a whole table of the history', (source) => {
    const plan = planOf(db, source);
    const scans = plan.filter(
      (line) => HISTORY.some((table) => new RegExp(`^SCAN ${table}\\b`).test(line)) && !BACKLOG_INDEXES.some((index) => line.endsWith(` INDEX ${index}`)),
    );
    expect(scans, plan.join('\n')).toEqual([]);
  });

  const ordered = reads.filter(
    (source) => /ORDER BY/i.test(source) && PAGED.includes(mainTable(source)) && !SORTS_ALLOWED.some((pattern) => pattern.test(source)),
  );
  it.each(ordered.map((source) => [source]))('%s reads rows in the order asked for (no sort, so a page costs its own rows)', (source) => {
    const plan = planOf(db, source);
    expect(
      plan.filter((line) => /TEMP B-TREE FOR .*ORDER BY/.test(line)),
      plan.join('\n'),
    ).toEqual([]);
  });

  it("reads a job's log lines by their stream, not by the organization's every line", () => {
    const source = reads.find((text) => /FROM logs WHERE stream = \?/.test(text)) as string;
    expect(planOf(db, source).join('\n')).toMatch(/USING INDEX logs_by_stream \(stream=\?/);
  });

  it("filters a function's and an organization's jobs by status within the index, in list order", () => {
    const byStatus = reads.filter((text) => /FROM jobs WHERE (function_id = \? AND )?organization_id = \? AND status = \?/.test(text));
    expect(byStatus.length).toBe(4);
    for (const source of byStatus)
      expect(planOf(db, source).join('\n')).toMatch(
        /USING INDEX jobs_by_(function|organization)_status \((function_id=\? AND )?organization_id=\? AND status=\?/,
      );
  });
});
