import { ChangeMessageVisibilityCommand, DeleteMessageCommand, GetQueueUrlCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createQueueUrlResolver, createSqsJobQueue, queueNameOf } from '../../../shared/adapters/aws/sqsJobQueue.js';

const sqs = mockClient(SQSClient);
const client = new SQSClient({ region: 'eu-west-1' });
const URL_OF: Record<string, string> = { 'version-1': 'https://sqs.test/1/sluice-v-version-1', 'version-2': 'https://sqs.test/1/sluice-v-version-2' };
const queueUrlOf = async (versionId: string) => URL_OF[versionId] ?? 'unknown';

const message = (jobId: string, receiptHandle: string, receiveCount: number) => ({ Messages: [{ Body: JSON.stringify({ jobId }), ReceiptHandle: receiptHandle, Attributes: { ApproximateReceiveCount: String(receiveCount) } }] });

beforeEach(() => {
  sqs.reset();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('createSqsJobQueue', () => {
  it('enqueues a message carrying the job id on the version queue', async () => {
    await createSqsJobQueue({ client, queueUrlOf }).enqueue('version-2', 'job-7');
    expect(sqs.commandCalls(SendMessageCommand).map((call) => call.args[0].input)).toEqual([{ QueueUrl: URL_OF['version-2'], MessageBody: '{"jobId":"job-7"}' }]);
  });

  it('takes one message with long polling, the lease and the receive count asked for', async () => {
    sqs.on(ReceiveMessageCommand).resolves(message('job-1', 'receipt-1', 1));
    const taken = await createSqsJobQueue({ client, queueUrlOf }).take('version-1');
    expect(taken).toEqual({ jobId: 'job-1', redelivered: false });
    expect(sqs.commandCalls(ReceiveMessageCommand).map((call) => call.args[0].input)).toEqual([
      { QueueUrl: URL_OF['version-1'], MaxNumberOfMessages: 1, WaitTimeSeconds: 20, VisibilityTimeout: 60, MessageSystemAttributeNames: ['ApproximateReceiveCount'] },
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
    sqs.on(ReceiveMessageCommand).resolvesOnce(message('job-1', 'receipt-old', 1)).resolvesOnce(message('job-1', 'receipt-new', 1));
    const queue = createSqsJobQueue({ client, queueUrlOf });
    await queue.take('version-1');
    await queue.take('version-1');
    await queue.ack('version-1', 'job-1');
    await queue.ack('version-1', 'job-1');
    await queue.ack('version-1', 'job-1');
    await queue.ack('version-1', 'job-never-taken');
    expect(sqs.commandCalls(DeleteMessageCommand).map((call) => call.args[0].input.ReceiptHandle)).toEqual(['receipt-old', 'receipt-new']);
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
    expect(await Promise.all([resolve('version-1'), resolve('version-1'), resolve('version-2')])).toEqual(['https://sqs.test/1/a', 'https://sqs.test/1/a', 'https://sqs.test/1/b']);
    expect(await resolve('version-1')).toBe('https://sqs.test/1/a');
    expect(sqs.commandCalls(GetQueueUrlCommand).map((call) => call.args[0].input)).toEqual([{ QueueName: 'sluice-v-version-1' }, { QueueName: 'sluice-v-version-2' }]);
  });

  it('asks again after a failed lookup', async () => {
    sqs.on(GetQueueUrlCommand).rejectsOnce(new Error('QueueDoesNotExist')).resolves({ QueueUrl: 'https://sqs.test/1/a' });
    const resolve = createQueueUrlResolver({ client, prefix: 'sluice-' });
    await expect(resolve('version-1')).rejects.toThrow('QueueDoesNotExist');
    expect(await resolve('version-1')).toBe('https://sqs.test/1/a');
    expect(sqs.commandCalls(GetQueueUrlCommand)).toHaveLength(2);
  });
});
