/**
 * A disk that fills can fail SQLite's writes as an I/O error (SQLITE_IOERR_WRITE, _FSYNC...)
 * rather than SQLITE_FULL, depending on which write met the full disk. The 2-hour local soak
 * (seed 251842821) left 4 jobs queued or processing for good after "disk I/O error" at a
 * disk-full fault: their moves were retried only for SQLITE_FULL. Either error means the disk
 * refused the write, and both are tried again until it takes it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import type { Clock } from '../../shared/ports/clock.js';
import type { Store } from '../../shared/ports/store.js';
import { lifecycleOver } from '../support/lifecycleHarness.js';

const NOW = 1_800_000_000_000_000;
const clock: Clock = { now: () => NOW, nowNs: () => BigInt(NOW) * 1000n };
const ioError = () => Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' });

let store: Store;
beforeEach(() => {
  store = createSqliteStore(':memory:');
});
afterEach(async () => store.close());

describe('a job move the disk failed with an I/O error', () => {
  it('is made again, and the job ends', async () => {
    const harness = lifecycleOver(store, clock);
    const job = await harness.pushed({ id: 'job-1' });
    const started = (await harness.lifecycle.start(job.id))!;
    const transition = store.jobs.transition.bind(store.jobs);
    let refusals = 0;
    store.jobs.transition = async (...args) => {
      if (refusals++ === 0) throw ioError();
      return transition(...args);
    };

    const ended = await harness.lifecycle.finish(started);

    expect(ended?.status).toBe('finished');
    expect((await store.jobs.get(job.id))?.status).toBe('finished');
  });
});
