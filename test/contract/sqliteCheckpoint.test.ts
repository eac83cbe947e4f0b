import { mkdtempSync, readFileSync, statSync } from 'node:fs';
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

  it('starts the WAL over under steady writes, so it does not grow with all that was ever written', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sluice-wal-')), 'sluice.db');
    const store = createSqliteStore(path);
    await store.jobs.create(aJob());
    // The WAL header's checkpoint sequence number (bytes 12-15) counts the times it started over.
    const restarts = () => readFileSync(`${path}-wal`).subarray(0, 16).readUInt32BE(12);
    const before = restarts();
    const creates: Promise<void>[] = [];
    // Writes in every turn, whatever the commits, as under load: a transaction is always open, so
    // the thread's passes never find every frame copied back when one begins.
    await new Promise<void>((resolve) => {
      const until = Date.now() + 3000;
      const turn = () => {
        for (let n = 0; n < 5; n++) creates.push(store.jobs.create(aJob({ inputs: { text: 'x'.repeat(4000) } })));
        if (Date.now() < until) setImmediate(turn);
        else resolve();
      };
      turn();
    });
    await Promise.all(creates);
    expect(restarts() - before).toBeGreaterThanOrEqual(2);
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
