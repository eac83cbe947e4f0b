import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../shared/adapters/local/sqlite/database.js';
import { WalCheckpointer } from '../../shared/adapters/local/sqlite/walCheckpointer.js';

/**
 * The WAL checkpointing thread on a disk that fills: a pass refused for lack of room used to end
 * the thread (an uncaught SQLITE_FULL), and checkpoints fell back onto the event loop for good.
 * A small tmpfs plays the disk (mounting it needs root, as e2e diskFull's does).
 */
describe('the WAL checkpointing thread', () => {
  let dir: string;
  let db: SqliteDatabase;
  let checkpointer: WalCheckpointer;
  const errors: unknown[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-wal-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', dir]);
    db = openDatabase(join(dir, 'sluice.db'));
    checkpointer = new WalCheckpointer(db, join(dir, 'sluice.db'), (error) => errors.push(error));
  });
  afterAll(async () => {
    await checkpointer.stop();
    db.close();
    execFileSync('umount', ['-l', dir]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('lives through passes a full disk refuses, and checkpoints once there is room', async () => {
    db.exec('CREATE TABLE notes (text TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO notes VALUES (?)');
    // Frames in the WAL that the database file must grow to take, then no room left for it.
    db.transaction(() => {
      for (let row = 0; row < 200; row++) insert.run('x'.repeat(16 * 1024));
    })();
    const databaseBytes = statSync(join(dir, 'sluice.db')).size;
    execFileSync('sh', ['-c', `dd if=/dev/zero of="${dir}/ballast" bs=64k 2>/dev/null; true`]);
    // Several of the thread's passes (every 20 to 500 ms) meet the full disk.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(errors).toEqual([]);

    execFileSync('rm', ['-f', `${dir}/ballast`]);
    await vi.waitFor(() => expect(statSync(join(dir, 'sluice.db')).size).toBeGreaterThan(databaseBytes + 3 * 1024 * 1024), { timeout: 5_000 });
    expect(errors).toEqual([]);
  }, 20_000);
});
