import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import { aJob } from '../support/fixtures.js';

/** What another process reading the file (a restarted service) would find: committed rows only. */
const committedStatus = (path: string, id: string) => {
  const reader = new Database(path, { readonly: true });
  try {
    return reader.prepare<[string], string>('SELECT status FROM jobs WHERE id = ?').pluck().get(id);
  } finally {
    reader.close();
  }
};

describe('SQLite writes, committed in groups', () => {
  it('a write resolves only once its commit is on disk', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sluice-commit-')), 'sluice.db');
    const store = createSqliteStore(path);
    const job = aJob();
    await store.jobs.create(job);
    expect(committedStatus(path, job.id)).toBe('queued');
    await store.close();
  });

  it('a move with deferred durability is on disk only after the commit that durable() waits for, with what was written beside it', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sluice-commit-')), 'sluice.db');
    const store = createSqliteStore(path);
    const job = aJob();
    await store.jobs.create(job);
    const moved = await store.jobs.transition(job.id, ['queued'], { status: 'processing', startedAt: 10 }, { deferDurability: true });
    expect(moved?.status).toBe('processing');
    // Decided in this process, not yet committed: a crash now would leave the job queued.
    expect(committedStatus(path, job.id)).toBe('queued');
    await store.durable();
    expect(committedStatus(path, job.id)).toBe('processing');
    await store.close();
  });
});
