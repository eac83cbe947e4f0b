import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import { aJob } from '../support/fixtures.js';

describe('the SQLite WAL, checkpointed off the event loop', () => {
  it('is copied back into the database by a thread of its own, not by a commit of the service', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sluice-wal-')), 'sluice.db');
    const store = createSqliteStore(path);
    const before = statSync(path).size;
    // Fewer pages than SQLite's own checkpoint waits for (1,000): no commit would copy them back.
    for (let batch = 0; batch < 5; batch++) {
      await Promise.all(Array.from({ length: 40 }, () => store.jobs.create(aJob({ inputs: { text: 'x'.repeat(2000) } }))));
    }
    await expect.poll(() => statSync(path).size, { timeout: 5000 }).toBeGreaterThan(before + 400_000);
    await store.close();
  });

  it('leaves no thread behind: a closed store lets its process exit, and reopens with every write', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sluice-wal-')), 'sluice.db');
    const store = createSqliteStore(path);
    const job = aJob();
    await store.jobs.create(job);
    await store.close();
    const again = createSqliteStore(path);
    expect((await again.jobs.get(job.id))?.id).toBe(job.id);
    await again.close();
  });
});
