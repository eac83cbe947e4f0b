import {
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
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
  it('enqueues a message carrying the job, its priority and push time on the version queue, its organization as the message group', async () => {
    const queue = createSqsJobQueue({ client, queueUrlOf, now: () => 1_000 });
    await queue.enqueue({ versionId: 'version-2', id: 'job-7', organizationId: 'org-1', priority: 3 });
    await queue.enqueue({ versionId: 'version-2', id: 'job-8', organizationId: 'org-1' });
    expect(sqs.commandCalls(SendMessageCommand).map((call) => call.args[0].input)).toEqual([
      { QueueUrl: URL_OF['version-2'], MessageBody: '{"jobId":"job-7","priority":3,"pushedAt":1000}', MessageGroupId: 'org-1' },
      { QueueUrl: URL_OF['version-2'], MessageBody: '{"jobId":"job-8","priority":0,"pushedAt":1000}', MessageGroupId: 'org-1' },
    ]);
  });

  it('delays a message by whole seconds, up to SQS’s 15 minutes', async () => {
    const queue = createSqsJobQueue({ client, queueUrlOf });
    const entry = { versionId: 'version-1', id: 'job-1', organizationId: 'org-1' };
    for (const delaySeconds of [0, 1.2, 60, 3600]) await queue.enqueue(entry, { delaySeconds });
    expect(sqs.commandCalls(SendMessageCommand).map((call) => call.args[0].input.DelaySeconds)).toEqual([undefined, 2, 60, 900]);
  });

  it('takes up to ten messages with long polling, the lease, the receive count and the message group asked for', async () => {
    sqs.on(ReceiveMessageCommand).resolves(message('job-1', 'receipt-1', 1));
    const taken = await createSqsJobQueue({ client, queueUrlOf }).take('version-1');
    expect(taken).toEqual({ jobId: 'job-1', redelivered: false });
    expect(sqs.commandCalls(ReceiveMessageCommand).map((call) => call.args[0].input)).toEqual([
      {
        QueueUrl: URL_OF['version-1'],
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 20,
        VisibilityTimeout: 60,
        MessageSystemAttributeNames: ['ApproximateReceiveCount', 'MessageGroupId'],
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
        { QueueUrl: URL_OF['version-1'], MessageBody: '{"jobId":"job-1","watch":true,"priority":0,"pushedAt":0}', DelaySeconds: 60 },
      ]);
      expect(sqs.commandCalls(DeleteMessageCommand).map((call) => call.args[0].input)).toEqual([{ QueueUrl: URL_OF['version-1'], ReceiptHandle: 'receipt-2' }]);
    });

    it('takes the next job of the batch when the redelivered one is still held', async () => {
      vi.useFakeTimers({ now: 1_000 });
      sqs.on(ReceiveMessageCommand).resolves({
        Messages: [
          { Body: '{"jobId":"job-1","watch":true}', ReceiptHandle: 'receipt-1', Attributes: { ApproximateReceiveCount: '1' } },
          { Body: '{"jobId":"job-2"}', ReceiptHandle: 'receipt-2', Attributes: { ApproximateReceiveCount: '1' } },
        ],
      });
      const queue = createSqsJobQueue({ client, queueUrlOf, leases: leaseStore({ 'job-1': 50_000 }).leases });
      expect(await queue.take('version-1')).toEqual({ jobId: 'job-2', redelivered: false });
      expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(0);
      await queue.ack('version-1', 'job-2');
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

  describe('the messages a take passes over', () => {
    const batch = (...jobs: [string, number][]) => ({
      Messages: jobs.map(([jobId, priority]) => ({
        Body: JSON.stringify({ jobId, priority, pushedAt: 0 }),
        ReceiptHandle: `receipt-${jobId}`,
        Attributes: { ApproximateReceiveCount: '1', MessageGroupId: 'org-1' },
      })),
    });

    it('keeps the job chosen when sending the others again fails: they come back once their visibility lapses', async () => {
      sqs.on(ReceiveMessageCommand).resolves(batch(['later', 0], ['urgent', 5]));
      sqs.on(SendMessageBatchCommand).rejects(new Error('throttled'));
      expect(await createSqsJobQueue({ client, queueUrlOf }).take('version-1')).toEqual({ jobId: 'urgent', redelivered: false });
      expect(sqs.commandCalls(DeleteMessageBatchCommand)).toHaveLength(0);
    });

    it('are deleted only where their copy was sent', async () => {
      sqs.on(ReceiveMessageCommand).resolves(batch(['urgent', 5], ['a', 0], ['b', 0]));
      sqs
        .on(SendMessageBatchCommand)
        .resolves({ Successful: [{ Id: '1', MessageId: 'm', MD5OfMessageBody: '' }], Failed: [{ Id: '0', Code: 'x', SenderFault: false }] });
      await createSqsJobQueue({ client, queueUrlOf }).take('version-1');
      expect(sqs.commandCalls(DeleteMessageBatchCommand).map((call) => call.args[0].input.Entries)).toEqual([[{ Id: '0', ReceiptHandle: 'receipt-b' }]]);
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
