import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { JobQueue } from '../../ports/jobQueue.js';
import type { JobLeases } from './jobLeases.js';

/** SQS keeps a message invisible at most 12 hours from its receipt, however often it is extended. */
export const SQS_MAX_VISIBILITY_SECONDS = 12 * 60 * 60;
/** SQS's longest delivery delay: how far ahead a watch over a long job can be set. */
const MAX_DELAY_SECONDS = 15 * 60;

export interface SqsJobQueueOptions {
  client: SQSClient;
  /** The URL of a version's queue (see createQueueUrlResolver). */
  queueUrlOf: (versionId: string) => Promise<string>;
  /** How long a taken message stays invisible between heartbeats (default 60). */
  visibilityTimeoutSeconds?: number;
  /** How often a taken message's lease is extended (default 20). */
  heartbeatSeconds?: number;
  /** Long polling: how long take waits for a message (default 20, SQS's maximum). */
  waitTimeSeconds?: number;
  /** How long SQS lets a message stay invisible from its receipt (default SQS's 12 hours; tests shorten it). */
  maxVisibilitySeconds?: number;
  /** Where a job running past that keeps its claim; without it such a job's message comes back as abandoned. */
  leases?: JobLeases;
  /** Epoch milliseconds; Date.now unless told. */
  now?: () => number;
  /** After a job's message is sent (the job is queued for good): its version's tasks may need waking. Must not throw. */
  onEnqueued?: (versionId: string) => Promise<void>;
}

interface Lease {
  jobId: string;
  queueUrl: string;
  receiptHandle: string;
  receivedAt: number;
  heartbeat: NodeJS.Timeout;
}

/** A message's body: a job to run, or (watch) a look at a long job still held by its lease. */
interface QueueMessage {
  jobId: string;
  watch?: true;
}

/** SQS queue names allow 80 characters: a prefix and a UUID fit. */
export function queueNameOf(prefix: string, versionId: string): string {
  return `${prefix}v-${versionId}`;
}

/** A version's queue URL, asked of SQS once per version: queues live as long as their version. */
export function createQueueUrlResolver(options: { client: SQSClient; prefix: string }): (versionId: string) => Promise<string> {
  const urls = new Map<string, Promise<string>>();
  return (versionId) => {
    let url = urls.get(versionId);
    if (!url) {
      url = options.client.send(new GetQueueUrlCommand({ QueueName: queueNameOf(options.prefix, versionId) })).then(({ QueueUrl }) => {
        if (!QueueUrl) throw new Error(`SQS returned no URL for the queue of version ${versionId}`);
        return QueueUrl;
      });
      // A failed lookup (the queue is not created yet) is asked again next time.
      url.catch(() => urls.delete(versionId));
      urls.set(versionId, url);
    }
    return url;
  };
}

/**
 * One SQS queue per version, carrying `{ jobId }` messages. A taken message stays in flight
 * under a visibility lease that a heartbeat extends until ack deletes it; a taker that dies
 * stops heartbeating, the lease lapses and the message comes back with a receive count above
 * one, which take reports as `redelivered`. Messages past the queue's maxReceiveCount go to its DLQ.
 *
 * SQS ends any lease 12 hours after the receipt, so a job running longer would come back and run
 * twice. Before that point its heartbeat renews a lease in the store (`leases`) instead; the
 * message that comes back finds the lease held, and is replaced by a delayed watch message that
 * looks again later: when the lease has lapsed (the worker died), the job is reported abandoned.
 */
export function createSqsJobQueue(options: SqsJobQueueOptions): JobQueue {
  const { client, queueUrlOf } = options;
  const visibilityTimeout = options.visibilityTimeoutSeconds ?? 60;
  const heartbeatMs = (options.heartbeatSeconds ?? 20) * 1000;
  const waitTimeSeconds = options.waitTimeSeconds ?? 20;
  const maxVisibilityMs = (options.maxVisibilitySeconds ?? SQS_MAX_VISIBILITY_SECONDS) * 1000;
  const now = options.now ?? Date.now;
  const leaseStore = options.leases;
  // Leases by version and job, oldest first: a job sent back to the queue is enqueued again
  // (and may be taken again) before its first message is acked, so ack releases the oldest.
  const receipts = new Map<string, Lease[]>();
  const keyOf = (versionId: string, jobId: string) => `${versionId}\n${jobId}`;

  const extend = async (lease: Lease) => {
    const capLeftMs = lease.receivedAt + maxVisibilityMs - now();
    try {
      // From two heartbeats before the message can be held no longer, the store holds the job.
      if (leaseStore && capLeftMs < visibilityTimeout * 1000 + 2 * heartbeatMs) await leaseStore.renew(lease.jobId, now() + visibilityTimeout * 1000);
      // SQS refuses an extension past its cap: the message is let come back, to find the lease.
      if (capLeftMs > visibilityTimeout * 1000)
        await client.send(
          new ChangeMessageVisibilityCommand({ QueueUrl: lease.queueUrl, ReceiptHandle: lease.receiptHandle, VisibilityTimeout: visibilityTimeout }),
        );
    } catch {
      // A missed heartbeat is retried at the next tick; if the lease lapses meanwhile the job
      // is redelivered, and the store's conditional writes keep it from running twice.
    }
  };

  /** A job whose lease is still held runs elsewhere: its message gives way to a later watch. */
  const stillHeld = async (queueUrl: string, jobId: string, receiptHandle: string) => {
    const until = leaseStore ? await leaseStore.expiresAt(jobId) : null;
    if (until === null || until <= now()) return false;
    const watch: QueueMessage = { jobId, watch: true };
    await client.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(watch), DelaySeconds: Math.min(MAX_DELAY_SECONDS, visibilityTimeout) }),
    );
    await client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle }));
    return true;
  };

  return {
    async enqueue({ versionId, id: jobId }) {
      await client.send(new SendMessageCommand({ QueueUrl: await queueUrlOf(versionId), MessageBody: JSON.stringify({ jobId }) }));
      await options.onEnqueued?.(versionId);
    },

    async take(versionId) {
      const queueUrl = await queueUrlOf(versionId);
      const { Messages } = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 1,
          WaitTimeSeconds: waitTimeSeconds,
          VisibilityTimeout: visibilityTimeout,
          MessageSystemAttributeNames: ['ApproximateReceiveCount'],
        }),
      );
      const message = Messages?.[0];
      if (!message?.Body || !message.ReceiptHandle) return null;
      const { jobId, watch } = JSON.parse(message.Body) as QueueMessage;
      const redelivered = watch === true || Number(message.Attributes?.ApproximateReceiveCount ?? '1') > 1;
      if (redelivered && (await stillHeld(queueUrl, jobId, message.ReceiptHandle))) return null;
      const lease: Lease = {
        jobId,
        queueUrl,
        receiptHandle: message.ReceiptHandle,
        receivedAt: now(),
        heartbeat: setInterval(() => void extend(lease), heartbeatMs),
      };
      // A lease must not keep the process alive on shutdown: the message simply comes back.
      lease.heartbeat.unref();
      const key = keyOf(versionId, jobId);
      receipts.set(key, [...(receipts.get(key) ?? []), lease]);
      return { jobId, redelivered };
    },

    async ack(versionId, jobId) {
      const key = keyOf(versionId, jobId);
      const [lease, ...rest] = receipts.get(key) ?? [];
      if (!lease) return;
      if (rest.length > 0) receipts.set(key, rest);
      else receipts.delete(key);
      clearInterval(lease.heartbeat);
      try {
        await client.send(new DeleteMessageCommand({ QueueUrl: lease.queueUrl, ReceiptHandle: lease.receiptHandle }));
      } catch (error) {
        // Past SQS's cap the message was received again and this receipt is stale: a watch over
        // the job took its place, and finds it ended. Otherwise the failure is the caller's.
        if (now() - lease.receivedAt < maxVisibilityMs) throw error;
      }
    },

    depth() {
      // Not cheap to ask here (an SQS call, and this method is synchronous). ECS scales each
      // version's service on the queue depth that CloudWatch reports, not on this number.
      return 0;
    },
  };
}
