import type { LogEntry, LogStage } from '../../../domain/log.js';
import type { LogStore } from '../../../ports/store.js';
import type { SqliteDatabase } from './database.js';
import type { GroupCommit } from './groupCommit.js';

interface LogRow {
  stream: string;
  organization_id: string;
  function_id: string;
  job_id: string;
  run_id: string;
  stage: string;
  time_ns: bigint;
  message: string;
}

const toEntry = (row: LogRow): LogEntry => ({
  stream: row.stream,
  organizationId: row.organization_id,
  functionId: row.function_id,
  jobId: row.job_id,
  runId: row.run_id,
  stage: row.stage as LogStage,
  timeNs: row.time_ns,
  message: row.message,
});

/** SQLite integers are signed 64-bit; a bound past them (a 20-digit time, say) means "no bound". */
const MAX_INT64 = 2n ** 63n - 1n;
const clampToInt64 = (value: bigint) => (value < 0n ? 0n : value > MAX_INT64 ? MAX_INT64 : value);

export function sqliteLogStore(db: SqliteDatabase, writes: GroupCommit): LogStore {
  const insert = db.prepare('INSERT INTO logs (stream, organization_id, function_id, job_id, run_id, stage, time_ns, message) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const insertMany = db.transaction((entries: LogEntry[]) => {
    for (const e of entries) insert.run(e.stream, e.organizationId, e.functionId, e.jobId, e.runId, e.stage, e.timeNs, e.message);
  });
  // Nanosecond times pass 2^53: read them as BigInt. `+organization_id` keeps the planner on the
  // stream's index (one stream is one job's or version's lines, in time order), checking the
  // organization on the rows read, instead of reading the organization's every line.
  const byStream = db
    .prepare<[string, string, bigint, bigint, number], LogRow>(
      'SELECT * FROM logs WHERE stream = ? AND +organization_id = ? AND time_ns BETWEEN ? AND ? ORDER BY time_ns, seq LIMIT ?',
    )
    .safeIntegers(true);
  const byOrganization = db
    .prepare<[string, bigint, bigint, number], LogRow>('SELECT * FROM logs WHERE organization_id = ? AND time_ns BETWEEN ? AND ? ORDER BY time_ns, seq LIMIT ?')
    .safeIntegers(true);
  return {
    async append(entries) {
      if (entries.length > 0) await writes.write(() => insertMany(entries));
    },
    async query({ stream, organizationId, limit, ...range }) {
      const startNs = clampToInt64(range.startNs);
      const endNs = clampToInt64(range.endNs);
      const rows =
        stream === undefined ? byOrganization.all(organizationId, startNs, endNs, limit) : byStream.all(stream, organizationId, startNs, endNs, limit);
      return rows.map(toEntry);
    },
  };
}
