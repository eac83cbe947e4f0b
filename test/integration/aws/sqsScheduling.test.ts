import { setTimeout as sleep } from 'node:timers/promises';
import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSqsJobQueue, type SqsJobQueueOptions } from '../../../shared/adapters/aws/sqsJobQueue.js';
import type { QueueEntry } from '../../../shared/domain/scheduling.js';
import type { JobQueue } from '../../../shared/ports/jobQueue.js';
import { motoServerOnPath, startMotoServer, type MotoServer } from '../../support/motoServer.js';

const onPath = motoServerOnPath();
if (!onPath) console.warn('Skipping the SQS scheduling specs: moto_server is not on PATH (install it with: pip install "moto[server]>=5").');

/** What ecsCompute gives each version's queue: five receives, then the dead-letter queue. */
const MAX_RECEIVE_COUNT = 5;

/**
 * The AWS queue's scheduling on moto_server's SQS: priority and fair share among the messages a
 * take receives, the organization as message group, retry delays, and what a take passes over.
 */
describe.runIf(onPath)('scheduling on the SQS job queue (moto)', () => {
  let moto: MotoServer;
  let client: SQSClient;
  let queueUrl = '';
  let deadLetterUrl = '';
  /** Requests sent to SQS by operation, since the last reset. */
  const requests = new Map<string, number>();

  beforeAll(async () => {
    moto = await startMotoServer();
    client = moto.sqs();
    client.middlewareStack.add(
      (next, context) => (args) => {
        requests.set(context.commandName ?? '', (requests.get(context.commandName ?? '') ?? 0) + 1);
        return next(args);
      },
      { step: 'initialize' },
    );
  }, 60_000);
  afterAll(async () => {
    await moto?.close();
  });

  beforeEach(async () => {
    await moto.reset();
    ({ QueueUrl: deadLetterUrl = '' } = await client.send(new CreateQueueCommand({ QueueName: 'sluice-dlq' })));
    const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl: deadLetterUrl, AttributeNames: ['QueueArn'] }));
    const redrivePolicy = JSON.stringify({ deadLetterTargetArn: Attributes?.QueueArn, maxReceiveCount: MAX_RECEIVE_COUNT });
    ({ QueueUrl: queueUrl = '' } = await client.send(new CreateQueueCommand({ QueueName: 'sluice-v-spec', Attributes: { RedrivePolicy: redrivePolicy } })));
    requests.clear();
  });

  const queueOf = (options: Partial<SqsJobQueueOptions> = {}): JobQueue =>
    createSqsJobQueue({ client, queueUrlOf: async () => queueUrl, waitTimeSeconds: 0, ...options });
  const entry = (id: string, organizationId: string, priority?: number): QueueEntry => ({ id, versionId: 'version-1', organizationId, priority });
  /** Takes and acks jobs until the queue answers none, in the order taken. */
  const drain = async (queue: JobQueue) => {
    const taken: string[] = [];
    for (let job = await queue.take('version-1'); job; job = await queue.take('version-1')) {
      taken.push(job.jobId);
      await queue.ack('version-1', job.jobId);
    }
    return taken;
  };
  const receiveRaw = async (url = queueUrl) =>
    (await client.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'] }))).Messages ?? [];

  it('starts a version’s higher priority jobs first, in push order at equal priority', async () => {
    const queue = queueOf();
    for (const [id, priority] of [
      ['low', -3],
      ['first', 0],
      ['urgent', 9],
      ['second', 0],
    ] as const)
      await queue.enqueue(entry(id, 'org-a', priority));
    expect(await drain(queue)).toEqual(['urgent', 'first', 'second', 'low']);
  });

  it('sends each job with its organization as the message group, which SQS fair queues share delivery by', async () => {
    await queueOf().enqueue(entry('job-1', 'org-a'));
    const [message] = await receiveRaw();
    expect(message?.Attributes?.MessageGroupId).toBe('org-a');
  });

  it('starts a quiet organization’s job second, not behind a noisy organization’s backlog', async () => {
    const queue = queueOf();
    for (let i = 0; i < 6; i++) await queue.enqueue(entry(`noisy-${i}`, 'noisy'));
    await queue.enqueue(entry('quiet', 'quiet'));
    expect((await drain(queue)).slice(0, 2)).toEqual(['noisy-0', 'quiet']);
  });

  it('gives a heavier organization a share in proportion to its weight', async () => {
    const queue = queueOf({ weightOf: (organizationId) => (organizationId === 'heavy' ? 3 : 1) });
    for (let i = 0; i < 3; i++) await queue.enqueue(entry(`light-${i}`, 'light'));
    for (let i = 0; i < 7; i++) await queue.enqueue(entry(`heavy-${i}`, 'heavy'));
    const firstEight = (await drain(queue)).slice(0, 8);
    expect(firstEight.filter((id) => id.startsWith('heavy'))).toHaveLength(6);
  });

  it('keeps a retried job out of reach until its delay has passed', async () => {
    const queue = queueOf();
    await queue.enqueue(entry('retry', 'org-a'), { delaySeconds: 2 });
    expect(await queue.take('version-1')).toBeNull();
    await sleep(2_100);
    expect(await queue.take('version-1')).toEqual({ jobId: 'retry', redelivered: false });
  });

  it('leaves the jobs a take passes over receivable at once, as received never before', async () => {
    const queue = queueOf();
    await queue.enqueue(entry('later', 'org-a', 0));
    await queue.enqueue(entry('urgent', 'org-a', 5));
    expect(await queue.take('version-1')).toEqual({ jobId: 'urgent', redelivered: false });
    const [passedOver, ...more] = await receiveRaw();
    expect(more).toEqual([]);
    expect(JSON.parse(passedOver?.Body ?? '{}')).toMatchObject({ jobId: 'later' });
    expect(passedOver?.Attributes).toMatchObject({ ApproximateReceiveCount: '1', MessageGroupId: 'org-a' });
  });

  it('passes a job over more often than the queue’s maxReceiveCount without redelivering it or moving it to the dead-letter queue', async () => {
    const queue = queueOf();
    await queue.enqueue(entry('patient', 'org-a', -10));
    for (let i = 0; i < MAX_RECEIVE_COUNT + 2; i++) {
      await queue.enqueue(entry(`urgent-${i}`, 'org-a', 10));
      expect((await queue.take('version-1'))?.jobId).toBe(`urgent-${i}`);
      await queue.ack('version-1', `urgent-${i}`);
    }
    expect(await queue.take('version-1')).toEqual({ jobId: 'patient', redelivered: false });
    expect(await receiveRaw(deadLetterUrl)).toEqual([]);
  });

  it('reports each abandoned job of a batch as redelivered, the one taken and those passed over', async () => {
    // A taker that dies: its lease of one second lapses with no heartbeat to extend it.
    const dying = queueOf({ visibilityTimeoutSeconds: 1, heartbeatSeconds: 3600, batchSize: 1 });
    for (const id of ['job-1', 'job-2']) await dying.enqueue(entry(id, 'org-a'));
    await dying.take('version-1');
    await dying.take('version-1');
    await sleep(1_100);
    const queue = queueOf();
    const taken = [await queue.take('version-1'), await queue.take('version-1')];
    expect(taken.map((job) => job?.redelivered)).toEqual([true, true]);
    expect(taken.map((job) => job?.jobId).sort()).toEqual(['job-1', 'job-2']);
  });

  it('costs a job at most five SQS requests from push to ack with a backlog, three without', async () => {
    const queue = queueOf();
    for (let i = 0; i < 20; i++) await queue.enqueue(entry(`job-${i}`, `org-${i % 3}`, (i * 7) % 5));
    expect(await drain(queue)).toHaveLength(20);
    const perJob = Object.fromEntries([...requests].map(([operation, count]) => [operation, count / 20]));
    // The last take receives nothing: one receive more than the jobs.
    expect(perJob).toEqual({
      SendMessageCommand: 1,
      ReceiveMessageCommand: 21 / 20,
      SendMessageBatchCommand: 19 / 20,
      DeleteMessageBatchCommand: 19 / 20,
      DeleteMessageCommand: 1,
    });

    requests.clear();
    await queue.enqueue(entry('alone', 'org-a'));
    await drain(queue);
    expect(Object.fromEntries(requests)).toEqual({ SendMessageCommand: 1, ReceiveMessageCommand: 2, DeleteMessageCommand: 1 });
  });
});
