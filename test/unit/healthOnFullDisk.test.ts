import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import type { Store } from '../../shared/ports/store.js';
import { DISK_FULL_BELOW_BYTES, HealthService } from '../../shared/services/healthService.js';

/** /healthz answered ok while the disk was full and every push was refused 507 (found by the soak's disk-full fault). */
describe('health on a full disk', () => {
  let store: Store;
  beforeEach(() => {
    store = createSqliteStore(':memory:');
  });
  afterEach(async () => store.close());

  it('is unavailable while the data directory has less room than a job’s writes need, and ready again once freed', async () => {
    let free = DISK_FULL_BELOW_BYTES - 1;
    const health = new HealthService(store, async () => free);
    expect(await health.check()).toEqual({ status: 'unavailable', store: 'ok', disk: 'full' });
    free = 10 * DISK_FULL_BELOW_BYTES;
    expect(await health.check()).toEqual({ status: 'ok', store: 'ok', disk: 'ok' });
  });

  it('says nothing of a disk where the store has none to fill (AWS)', async () => {
    expect(await new HealthService(store).check()).toEqual({ status: 'ok', store: 'ok' });
  });
});
