import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { JobLeases } from '../../../shared/adapters/aws/jobLeases.js';
import { createQueueUrlResolver, createSqsJobQueue, queueNameOf } from '../../../shared/adapters/aws/sqsJobQueue.js';

const sqs = mockClient(SQSClient);
const client = new SQSClient({ region: 'eu-west-1' });
const URL_OF: Record<string, string> = { 'version-1': 'https://sqs.test/1/sluice-v-version-1', 'version-2': 'https://sqs.test/1/sluice-v-version-2' };
const queueUrlOf = async (versionId: string) => URL_OF[versionId] ?? 'unknown';

const message = (jobId: string, receiptHandle: string, receiveCount: number) => ({
  Messages: [{ Body: JSON.stringify({ jobId }), ReceiptHandle: receiptHandle, Attributes: { ApproximateReceiveCount: String(receiveCount) } }],
});

beforeEach(() => {
  sqs.reset();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('createSqsJobQueue', () => {
  it('enqueues a message carrying the job id on the version queue', async () => {
    await createSqsJobQueue({ client, queueUrlOf }).enqueue({ versionId: 'version-2', id: 'job-7', organizationId: 'org-1' });
    expect(sqs.commandCalls(SendMessageCommand).map((call) => call.args[0].input)).toEqual([
      { QueueUrl: URL_OF['version-2'], MessageBody: '{"jobId":"job-7"}' },
    ]);
  });

  it('takes one message with long polling, the lease and the receive count asked for', async () => {
    sqs.on(ReceiveMessageCommand).resolves(message('job-1', 'receipt-1', 1));
    const taken = await createSqsJobQueue({ client, queueUrlOf }).take('version-1');
    expect(taken).toEqual({ jobId: 'job-1', redelivered: false });
    expect(sqs.commandCalls(ReceiveMessageCommand).map((call) => call.args[0].input)).toEqual([
      {
        QueueUrl: URL_OF['version-1'],
        MaxNumberOfMessages: 1,
        WaitTimeSeconds: 20,
        VisibilityTimeout: 60,
        MessageSystemAttributeNames: ['ApproximateReceiveCount'],
      },
    ]);
  });

  it('passes custom visibility and wait times to ReceiveMessage', async () => {
    sqs.on(ReceiveMessageCommand).resolves({});
    await createSqsJobQueue({ client, queueUrlOf, visibilityTimeoutSeconds: 120, waitTimeSeconds: 5 }).take('version-1');
    expect(sqs.commandCalls(ReceiveMessageCommand)[0]?.args[0].input).toMatchObject({ WaitTimeSeconds: 5, VisibilityTimeout: 120 });
  });

  it('reports a message received more than once as redelivered', async () => {
    sqs.on(ReceiveMessageCommand).resolves(message('job-1', 'receipt-1', 3));
    expect(await createSqsJobQueue({ client, queueUrlOf }).take('version-1')).toEqual({ jobId: 'job-1', redelivered: true });
  });

  it('answers null when no message arrives', async () => {
    sqs.on(ReceiveMessageCommand).resolves({ Messages: [] });
    const queue = createSqsJobQueue({ client, queueUrlOf });
    expect(await queue.take('version-1')).toBeNull();
    sqs.on(ReceiveMessageCommand).resolves({});
    expect(await queue.take('version-1')).toBeNull();
  });

  it('extends the lease of a taken message every heartbeat until it is acked, then deletes it by its receipt handle', async () => {
    vi.useFakeTimers();
    sqs.on(ReceiveMessageCommand).resolves(message('job-1', 'receipt-1', 1));
    const queue = createSqsJobQueue({ client, queueUrlOf, visibilityTimeoutSeconds: 90, heartbeatSeconds: 30 });
    await queue.take('version-1');

    await vi.advanceTimersByTimeAsync(29_999);
    expect(sqs.commandCalls(ChangeMessageVisibilityCommand)).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(sqs.commandCalls(ChangeMessageVisibilityCommand).map((call) => call.args[0].input)).toEqual([
      { QueueUrl: URL_OF['version-1'], ReceiptHandle: 'receipt-1', VisibilityTimeout: 90 },
      { QueueUrl: URL_OF['version-1'], ReceiptHandle: 'receipt-1', VisibilityTimeout: 90 },
    ]);

    await queue.ack('version-1', 'job-1');
    expect(sqs.commandCalls(DeleteMessageCommand).map((call) => call.args[0].input)).toEqual([{ QueueUrl: URL_OF['version-1'], ReceiptHandle: 'receipt-1' }]);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(sqs.commandCalls(ChangeMessageVisibilityCommand)).toHaveLength(2);
  });

  it('keeps heartbeating after a failed extension', async () => {
    vi.useFakeTimers();
    sqs.on(ReceiveMessageCommand).resolves(message('job-1', 'receipt-1', 1));
    sqs.on(ChangeMessageVisibilityCommand).rejectsOnce(new Error('throttled')).resolves({});
    const queue = createSqsJobQueue({ client, queueUrlOf });
    await queue.take('version-1');
    await vi.advanceTimersByTimeAsync(40_000);
    expect(sqs.commandCalls(ChangeMessageVisibilityCommand)).toHaveLength(2);
    await queue.ack('version-1', 'job-1');
  });

  it('acks the oldest message of a job taken twice first, and ignores an ack of a job never taken', async () => {
    sqs
      .on(ReceiveMessageCommand)
      .resolvesOnce(message('job-1', 'receipt-old', 1))
      .resolvesOnce(message('job-1', 'receipt-new', 1));
    const queue = createSqsJobQueue({ client, queueUrlOf });
    await queue.take('version-1');
    await queue.take('version-1');
    await queue.ack('version-1', 'job-1');
    await queue.ack('version-1', 'job-1');
    await queue.ack('version-1', 'job-1');
    await queue.ack('version-1', 'job-never-taken');
    expect(sqs.commandCalls(DeleteMessageCommand).map((call) => call.args[0].input.ReceiptHandle)).toEqual(['receipt-old', 'receipt-new']);
  });

  describe('a job running past SQS’s 12 hours', () => {
    /** A store of leases in memory, with every renewal it was asked for. */
    const leaseStore = (held: Record<string, number> = {}) => {
      const renewals: [string, number][] = [];
      const leases: JobLeases = {
        renew: async (jobId, untilMs) => {
          renewals.push([jobId, untilMs]);
          held[jobId] = untilMs;
        },
        expiresAt: async (jobId) => held[jobId] ?? null,
      };
      return { leases, renewals };
    };

    it('is held by a lease in the store from two heartbeats before SQS lets go of its message, and the message is extended no further', async () => {
      vi.useFakeTimers({ now: 0 });
      sqs.on(ReceiveMessageCommand).resolves(message('job-1', 'receipt-1', 1));
      const { leases, renewals } = leaseStore();
      const queue = createSqsJobQueue({ client, queueUrlOf, visibilityTimeoutSeconds: 60, heartbeatSeconds: 20, maxVisibilitySeconds: 300, leases });
      await queue.take('version-1');
      // Heartbeats every 20 s extend the message while more than its 60 s remain to the 300 s cap (up to 220 s).
      await vi.advanceTimersByTimeAsync(200_000);
      expect(renewals).toEqual([]);
      await vi.advanceTimersByTimeAsync(20_000);
      // 220 s: 80 s left, under 60 s and two heartbeats: the store takes over.
      expect(renewals).toEqual([['job-1', 280_000]]);
      await vi.advanceTimersByTimeAsync(80_000);
      expect(renewals.map(([, until]) => until)).toEqual([280_000, 300_000, 320_000, 340_000, 360_000]);
      expect(sqs.commandCalls(ChangeMessageVisibilityCommand)).toHaveLength(11);
      await queue.ack('version-1', 'job-1');
    });

    it('gives way to a delayed watch when its message comes back while its lease is held, and nothing is taken', async () => {
      vi.useFakeTimers({ now: 1_000 });
      sqs.on(ReceiveMessageCommand).resolves(message('job-1', 'receipt-2', 2));
      const { leases } = leaseStore({ 'job-1': 50_000 });
      const queue = createSqsJobQueue({ client, queueUrlOf, visibilityTimeoutSeconds: 60, leases });
      expect(await queue.take('version-1')).toBeNull();
      expect(sqs.commandCalls(SendMessageCommand).map((call) => call.args[0].input)).toEqual([
        { QueueUrl: URL_OF['version-1'], MessageBody: '{"jobId":"job-1","watch":true}', DelaySeconds: 60 },
      ]);
      expect(sqs.commandCalls(DeleteMessageCommand).map((call) => call.args[0].input)).toEqual([{ QueueUrl: URL_OF['version-1'], ReceiptHandle: 'receipt-2' }]);
    });

    it('is reported abandoned when a watch finds its lease lapsed (its worker died)', async () => {
      vi.useFakeTimers({ now: 100_000 });
      sqs
        .on(ReceiveMessageCommand)
        .resolves({ Messages: [{ Body: '{"jobId":"job-1","watch":true}', ReceiptHandle: 'receipt-3', Attributes: { ApproximateReceiveCount: '1' } }] });
      const { leases } = leaseStore({ 'job-1': 50_000 });
      expect(await createSqsJobQueue({ client, queueUrlOf, leases }).take('version-1')).toEqual({ jobId: 'job-1', redelivered: true });
      expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(0);
    });

    it('acks its stale receipt quietly once the message was received again', async () => {
      vi.useFakeTimers({ now: 0 });
      sqs.on(ReceiveMessageCommand).resolves(message('job-1', 'receipt-1', 1));
      sqs.on(DeleteMessageCommand).rejects(new Error('ReceiptHandleIsInvalid'));
      const queue = createSqsJobQueue({ client, queueUrlOf, heartbeatSeconds: 20, maxVisibilitySeconds: 100, leases: leaseStore().leases });
      await queue.take('version-1');
      await vi.advanceTimersByTimeAsync(120_000);
      await expect(queue.ack('version-1', 'job-1')).resolves.toBeUndefined();
    });
  });

  it('reports a depth of 0: ECS scales on the queue depth in CloudWatch', () => {
    expect(createSqsJobQueue({ client, queueUrlOf }).depth('version-1')).toBe(0);
    expect(sqs.calls()).toHaveLength(0);
  });
});

describe('queue names and URLs', () => {
  it('names a version queue after the prefix and the version, within SQS limits', () => {
    const name = queueNameOf('sluice-', '0b0f8ac2-3c5e-4ad4-9f51-3d7a8b7f0e11');
    expect(name).toBe('sluice-v-0b0f8ac2-3c5e-4ad4-9f51-3d7a8b7f0e11');
    expect(name.length).toBeLessThanOrEqual(80);
  });

  it('asks GetQueueUrl once per version', async () => {
    sqs.on(GetQueueUrlCommand, { QueueName: 'sluice-v-version-1' }).resolves({ QueueUrl: 'https://sqs.test/1/a' });
    sqs.on(GetQueueUrlCommand, { QueueName: 'sluice-v-version-2' }).resolves({ QueueUrl: 'https://sqs.test/1/b' });
    const resolve = createQueueUrlResolver({ client, prefix: 'sluice-' });
    expect(await Promise.all([resolve('version-1'), resolve('version-1'), resolve('version-2')])).toEqual([
      'https://sqs.test/1/a',
      'https://sqs.test/1/a',
      'https://sqs.test/1/b',
    ]);
    expect(await resolve('version-1')).toBe('https://sqs.test/1/a');
    expect(sqs.commandCalls(GetQueueUrlCommand).map((call) => call.args[0].input)).toEqual([
      { QueueName: 'sluice-v-version-1' },
      { QueueName: 'sluice-v-version-2' },
    ]);
  });

  it('asks again after a failed lookup', async () => {
    sqs.on(GetQueueUrlCommand).rejectsOnce(new Error('QueueDoesNotExist')).resolves({ QueueUrl: 'https://sqs.test/1/a' });
    const resolve = createQueueUrlResolver({ client, prefix: 'sluice-' });
    await expect(resolve('version-1')).rejects.toThrow('QueueDoesNotExist');
    expect(await resolve('version-1')).toBe('https://sqs.test/1/a');
    expect(sqs.commandCalls(GetQueueUrlCommand)).toHaveLength(2);
  });
});
