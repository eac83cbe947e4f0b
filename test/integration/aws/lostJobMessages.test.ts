import { CreateQueueCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSqsJobQueue, type SqsJobQueue } from '../../../shared/adapters/aws/sqsJobQueue.js';
import { createSqliteStore } from '../../../shared/adapters/local/sqlite/sqliteStore.js';
import type { Clock } from '../../../shared/ports/clock.js';
import type { Store } from '../../../shared/ports/store.js';
import type { Builder } from '../../../shared/ports/builder.js';
import type { DeliveryScheduler } from '../../../shared/ports/deliveryScheduler.js';
import { Sweeper, SWEEPER_DEFAULTS } from '../../../shared/services/sweeper.js';
import type { WebhookDeliverer } from '../../../shared/services/webhookDeliverer.js';
import { lifecycleOver } from '../../support/lifecycleHarness.js';
import { aJob, aVersion } from '../../support/fixtures.js';
import { motoServerOnPath, startMotoServer, type MotoServer } from '../../support/motoServer.js';

const onPath = motoServerOnPath();
if (!onPath) console.warn('Skipping the lost job message specs: moto_server is not on PATH (install it with: pip install "moto[server]>=5").');

const MINUTE = 60_000_000;
const NOW = Date.now() * 1000;
const clock: Clock = { now: () => NOW, nowNs: () => BigInt(NOW) * 1000n };
const unused = {} as never;

/**
 * A push that stored its job and died before sending its message (its Lambda timed out while SQS
 * refused it, and its client never asked again): the 2-hour aws:local soak left three such jobs
 * queued for good. The sweeper finds them by their queue, on moto_server's SQS.
 */
describe.runIf(onPath)('the sweeper, for queued jobs whose message was never sent (moto)', () => {
  let moto: MotoServer;
  let client: SQSClient;
  let store: Store;
  let queue: SqsJobQueue;
  let sweeper: Sweeper;

  beforeAll(async () => {
    moto = await startMotoServer();
    client = moto.sqs();
  }, 60_000);
  afterAll(async () => {
    await moto?.close();
  });
  beforeEach(async () => {
    await moto.reset();
    const { QueueUrl = '' } = await client.send(new CreateQueueCommand({ QueueName: 'sluice-v-spec' }));
    queue = createSqsJobQueue({ client, queueUrlOf: async () => QueueUrl, waitTimeSeconds: 0 });
    store = createSqliteStore(':memory:');
    await store.versions.create(aVersion({ id: 'version-1', buildStatus: 'ready', readyAt: NOW - 60 * MINUTE }));
    const harness = lifecycleOver(store, clock, queue);
    sweeper = new Sweeper(store, unused as Builder, unused as DeliveryScheduler, unused as WebhookDeliverer, harness.lifecycle, clock, SWEEPER_DEFAULTS, queue);
  });
  afterEach(async () => store.close());

  const stored = async (id: string, minutesAgo: number) => {
    await store.jobs.create(aJob({ id, versionId: 'version-1', status: 'queued', createdAt: NOW - minutesAgo * MINUTE, webhooks: [] }));
  };
  const takeAll = async () => {
    const ids: string[] = [];
    for (let taken = await queue.take('version-1'); taken; taken = await queue.take('version-1')) {
      ids.push(taken.jobId);
      await queue.ack('version-1', taken.jobId);
    }
    return ids.sort();
  };

  it('sends again the jobs queued for minutes in a queue that holds no message, and not the newer ones', async () => {
    await stored('lost-1', 10);
    await stored('lost-2', 6);
    await stored('just-pushed', 1);

    const report = await sweeper.sweep();

    expect(report.jobsSentAgain.sort()).toEqual(['lost-1', 'lost-2']);
    expect(await takeAll()).toEqual(['lost-1', 'lost-2']);
  });

  it('sends nothing while the queue holds messages: its old jobs may be waiting their turn', async () => {
    await stored('waiting', 10);
    await queue.enqueue({ id: 'waiting', versionId: 'version-1', organizationId: 'org-1' });
    await stored('behind-it', 8);
    await queue.enqueue({ id: 'behind-it', versionId: 'version-1', organizationId: 'org-1' });

    expect((await sweeper.sweep()).jobsSentAgain).toEqual([]);
    expect(await takeAll()).toEqual(['behind-it', 'waiting']);
  });
});
