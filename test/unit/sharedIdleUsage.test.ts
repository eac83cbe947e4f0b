import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import { DEFAULT_PRICES } from '../../shared/domain/pricing.js';
import type { VersionRecord } from '../../shared/domain/version.js';
import type { Clock } from '../../shared/ports/clock.js';
import type { Store } from '../../shared/ports/store.js';
import { FunctionAccess } from '../../shared/services/functionAccess.js';
import { SharedIdleUsage } from '../../shared/services/sharedIdleUsage.js';
import { UsageService } from '../../shared/services/usageService.js';
import { VersionService } from '../../shared/services/versionService.js';
import { aBareFunction, aVersion } from '../support/fixtures.js';

const MINUTE = 60_000_000; // µs
const M = Math.floor(Date.UTC(2026, 10, 23, 10) / 60_000) * MINUTE;

/** A clock the test moves; one per task would drift apart, one shared is enough here. */
const clock = { now: M, asClock: (): Clock => ({ now: () => clock.now, nowNs: () => BigInt(clock.now) * 1000n }) };

let store: Store;
afterEach(async () => store?.close());

async function setUp(version: Partial<VersionRecord>) {
  store = createSqliteStore(':memory:');
  const fn = aBareFunction({ id: 'function-1' });
  await store.functions.create(fn);
  const access = new FunctionAccess(store);
  const usage = new UsageService(store, new VersionService(store, access), access, { prices: DEFAULT_PRICES, customPrices: new Map() }, clock.asClock());
  const billed = async () => (await store.usage.totals({ organizationId: fn.organizationId, fromHour: 0, toHour: 2 ** 40 })).get('cpu')?.computeSeconds ?? 0;
  const task = () => new SharedIdleUsage(usage, clock.asClock());
  return { version: aVersion({ functionId: fn.id, computeType: 'cpu', split: 1, ...version }), task, billed };
}

/** Each task records `seconds` of idle time during minute `minute`, then the next minute flushes it. */
async function idleMinute(tasks: SharedIdleUsage[], version: VersionRecord, minute: number, seconds: number) {
  for (const [i, task] of tasks.entries()) {
    clock.now = M + minute * MINUTE + (10 + 20 * i) * 1_000_000;
    await task.record(version, seconds);
  }
}

describe('idle minimum replicas spread over several tasks', () => {
  it('bills a version’s idle minimum once, however many tasks run its replicas', async () => {
    const { version, task, billed } = await setUp({ minimumReplicas: 1 });
    const tasks = [task(), task()];
    for (let minute = 0; minute < 3; minute += 1) await idleMinute(tasks, version, minute, 60);
    await Promise.all(tasks.map((t) => t.flush()));
    expect(await billed()).toBe(180);
  });

  it('bills every idle replica up to minimum_replicas, wherever each one runs', async () => {
    const { version, task, billed } = await setUp({ minimumReplicas: 2 });
    const tasks = [task(), task(), task()];
    await idleMinute(tasks, version, 0, 60);
    await Promise.all(tasks.map((t) => t.flush()));
    expect(await billed()).toBe(120);
  });

  it('bills a task of several idle replicas for each of them, and part of a minute as gathered', async () => {
    const { version, task, billed } = await setUp({ minimumReplicas: 2, split: 2 });
    const only = task();
    await idleMinute([only], version, 0, 120);
    await idleMinute([only], version, 1, 25);
    await only.flush();
    expect(await billed()).toBe(145);
  });

  it('claims a minute only once it is over, so a task that stops early still counts it', async () => {
    const { version, task, billed } = await setUp({ minimumReplicas: 1 });
    const stopping = task();
    await idleMinute([stopping], version, 0, 30);
    expect(await billed()).toBe(0);
    await stopping.flush();
    expect(await billed()).toBe(30);
  });
});
