import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTables } from '../../../shared/adapters/aws/dynamodb/createTables.js';
import { createDocumentClient, createDynamoDbStore } from '../../../shared/adapters/aws/dynamodb/dynamoDbStore.js';
import type { JobRecord } from '../../../shared/domain/job.js';
import type { Clock } from '../../../shared/ports/clock.js';
import type { Builder } from '../../../shared/ports/builder.js';
import type { DeliveryScheduler } from '../../../shared/ports/deliveryScheduler.js';
import { Sweeper } from '../../../shared/services/sweeper.js';
import type { WebhookDeliverer } from '../../../shared/services/webhookDeliverer.js';
import { startDynalite } from '../../contract/dynaliteServer.js';
import type { LifecycleHarness } from '../../support/lifecycleHarness.js';
import { lifecycleOver } from '../../support/lifecycleHarness.js';

const PUSHED = 1_800_000_000_000_000;
const SECOND = 1_000_000;
let now = PUSHED;
const clock: Clock = { now: () => now, nowNs: () => BigInt(now) * 1000n };

describe('retries and start deadlines over DynamoDB (the AWS mode’s store)', () => {
  let harness: LifecycleHarness;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const dynalite = await startDynalite();
    await createTables(dynalite.client, 'test-');
    const store = createDynamoDbStore({ client: createDocumentClient(dynalite.client), tablePrefix: 'test-' });
    harness = lifecycleOver(store, clock);
    close = async () => {
      await store.close();
      await dynalite.close();
    };
  }, 60_000);
  afterAll(async () => close?.());

  it("keeps a retried job's restart entry and its retries in the stored job, queued for its next run", async () => {
    const { store, lifecycle, pushed } = harness;
    const job = await pushed({ maxRetries: 2, startTimeoutSeconds: 60 });
    const running = (await lifecycle.start(job.id)) as JobRecord;
    await lifecycle.fail(running, 'ValueError: once', { retryable: true });
    const stored = await store.jobs.get(job.id);
    expect(stored).toMatchObject({ status: 'queued', maxRetries: 2, startTimeoutSeconds: 60, attempts: 1 });
    expect(stored?.restarts).toEqual([{ type: 'error', reason: 'ValueError: once', run_id: 'run-0', timestamp: now, retry: 1 }]);
    expect((await store.jobs.listQueuedBefore(now + 1, 10)).map((queued) => queued.id)).toContain(job.id);
  });

  it("cancels in the sweeper's pass a queued job nobody started by its deadline", async () => {
    const { store, pushed } = harness;
    const late = await pushed({ startTimeoutSeconds: 30 });
    const timely = await pushed({ startTimeoutSeconds: 300 });
    now += 31 * SECOND;
    const unused = {} as never;
    const sweeper = new Sweeper(store, unused as Builder, unused as DeliveryScheduler, unused as WebhookDeliverer, harness.lifecycle, clock);
    expect(await sweeper.sweep()).toMatchObject({ jobsPastStartDeadline: [late.id], failures: [] });
    expect(await store.jobs.get(late.id)).toMatchObject({
      status: 'cancelled',
      startedAt: null,
      error: 'The job did not start within its start_timeout of 30 s.',
    });
    expect((await store.jobs.get(timely.id))?.status).toBe('queued');
  });
});
