import { describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import { createSystemClock } from '../../shared/adapters/systemClock.js';
import { LogWriter } from '../../shared/services/logWriter.js';

const labels = { stream: 'job:j', organizationId: 'o', functionId: 'f', jobId: 'j', runId: 'r', stage: 'run' as const };
const everything = { stream: 'job:j', organizationId: 'o', startNs: 0n, endNs: 2n ** 63n - 1n, limit: 10_000 };

describe('LogWriter', () => {
  it('stores lines in the order they were written, with increasing times', async () => {
    const store = createSqliteStore(':memory:');
    const writer = new LogWriter(store.logs, createSystemClock(), labels, { batchSize: 3 });
    for (let i = 0; i < 10; i++) writer.write(`line ${i}`);
    await writer.flush();
    const lines = await store.logs.query(everything);
    expect(lines.map((line) => line.message)).toEqual(Array.from({ length: 10 }, (_, i) => `line ${i}`));
    expect(lines.every((line, i) => i === 0 || line.timeNs > (lines[i - 1] as { timeNs: bigint }).timeNs)).toBe(true);
  });

  it('asks its producer to pause once too many lines wait, and lets it go on once they are stored', async () => {
    const store = createSqliteStore(':memory:');
    const writer = new LogWriter(store.logs, createSystemClock(), labels, { batchSize: 1000, highWaterMark: 5 });
    const answers = Array.from({ length: 6 }, (_, i) => writer.write(`line ${i}`));
    expect(answers).toEqual([true, true, true, true, false, false]);
    await writer.flush();
    expect(writer.write('after')).toBe(true);
  });
});
