import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../shared/adapters/local/sqlite/database.js';
import { GroupCommit } from '../../shared/adapters/local/sqlite/groupCommit.js';
import { sqliteLogStore } from '../../shared/adapters/local/sqlite/logStore.js';
import { createSystemClock } from '../../shared/adapters/systemClock.js';
import { LogWriter } from '../../shared/services/logWriter.js';

const labels = { stream: 'job:j', organizationId: 'o', functionId: 'f', jobId: 'j', runId: 'r', stage: 'run' as const };
const everything = { stream: 'job:j', organizationId: 'o', startNs: 0n, endNs: 2n ** 63n - 1n, limit: 10_000 };

describe('LogWriter on a full disk', () => {
  it('drops a batch the store has no room for, says so, and stores the lines written once there is room', async () => {
    const db = openDatabase(':memory:');
    const logs = sqliteLogStore(db, new GroupCommit(db, 0));
    const refused: { code: unknown; lines: number }[] = [];
    const writer = new LogWriter(logs, createSystemClock(), labels, {
      onRefused: (error, lines) => refused.push({ code: (error as { code?: unknown }).code, lines }),
    });
    // No room: SQLite answers SQLITE_FULL to a write that needs another page, as on a full disk.
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
    writer.write('x'.repeat(100_000));
    await expect(writer.flush()).resolves.toBeUndefined();
    expect(refused).toEqual([{ code: 'SQLITE_FULL', lines: 1 }]);

    // The rest of the refused write's turn fails with it (groupCommit.ts): room comes back later.
    await new Promise((resolve) => setImmediate(resolve));
    db.pragma('max_page_count = 1000000');
    writer.write('room again');
    await writer.flush();
    expect((await logs.query(everything)).map((line) => line.message)).toEqual(['room again']);
  });
});
