import type { IdempotencyRecord } from '../../../domain/idempotency.js';
import type { IdempotencyKeyStore } from '../../../ports/store.js';
import type { SqliteDatabase } from './database.js';
import type { GroupCommit } from './groupCommit.js';

interface IdempotencyRow {
  organization_id: string;
  key: string;
  request_hash: string;
  job_id: string;
  created_at: number;
  expires_at: number;
}

const toRecord = (row: IdempotencyRow): IdempotencyRecord => ({
  organizationId: row.organization_id,
  key: row.key,
  requestHash: row.request_hash,
  jobId: row.job_id,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

export function sqliteIdempotencyKeyStore(db: SqliteDatabase, writes: GroupCommit): IdempotencyKeyStore {
  const sweep = db.prepare<[number]>('DELETE FROM idempotency_keys WHERE expires_at <= ?');
  const insert = db.prepare<[string, string, string, string, number, number]>(
    `INSERT INTO idempotency_keys (organization_id, key, request_hash, job_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (organization_id, key) DO NOTHING`,
  );
  const get = db.prepare<[string, string], IdempotencyRow>('SELECT * FROM idempotency_keys WHERE organization_id = ? AND key = ?');
  const remove = db.prepare<[string, string, string]>('DELETE FROM idempotency_keys WHERE organization_id = ? AND key = ? AND job_id = ?');
  return {
    async claim(record) {
      return writes.write(() => {
        // Expired keys go first (this one's among them), so the key is free again after a day.
        sweep.run(record.createdAt);
        insert.run(record.organizationId, record.key, record.requestHash, record.jobId, record.createdAt, record.expiresAt);
        return toRecord(get.get(record.organizationId, record.key) as IdempotencyRow);
      });
    },
    async release(organizationId, key, jobId) {
      await writes.write(() => remove.run(organizationId, key, jobId));
    },
  };
}
