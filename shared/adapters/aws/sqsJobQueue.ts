import {
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { JobQueue } from '../../ports/jobQueue.js';
import { FairBatchOrder } from './fairBatchOrder.js';
import type { JobLeases } from './jobLeases.js';
import { delayOf, MAX_DELAY_SECONDS, messageOf, RECEIVED_ATTRIBUTES, receivedMessageOf, resendEntryOf, watchOf, type ReceivedMessage } from './sqsMessages.js';

/** SQS keeps a message invisible at most 12 hours from its receipt, however often it is extended. */
export const SQS_MAX_VISIBILITY_SECONDS = 12 * 60 * 60;
/** SQS's counts of a queue's messages: waiting, taken (in flight) and delayed (a retry's backoff, a watch). */
const HELD_MESSAGE_COUNTS = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] as const;
/** The most messages one ReceiveMessage returns: the jobs a take chooses among. */
const SQS_MAX_BATCH = 10;

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
  /** An organization's share of the version's replicas relative to others (default 1 for all). */
  weightOf?: (organizationId: string) => number;
  /** How many messages a take receives to choose among (default 10, SQS's maximum; 1 is plain arrival order). */
  batchSize?: number;
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
 * One SQS queue per version, carrying a message per queued job (sqsMessages.ts). A taken message
 * stays in flight under a visibility lease that a heartbeat extends until ack deletes it; a taker
 * that dies stops heartbeating, the lease lapses and the message comes back with a receive count
 * above one, which take reports as `redelivered`. Messages past the queue's maxReceiveCount go to its DLQ.
 *
 * Scheduling (docs/architecture/aws.md, "Scheduling on AWS"): each message's group is its
 * organization, which SQS fair queues share delivery by; a take receives up to ten messages, keeps
 * the first in FairBatchOrder's order (weighted share, then priority, then push order) and sends
 * the others again as new messages, visible at once, before deleting them. Sent again rather than
 * made visible again: a message received and let go counts as received, which would report it as
 * redelivered and, past maxReceiveCount, move a job merely passed over to the DLQ.
 *
 * SQS ends any lease 12 hours after the receipt, so a job running longer would come back and run
 * twice. Before that point its heartbeat renews a lease in the store (`leases`) instead; the
 * message that comes back finds the lease held, and is replaced by a delayed watch message that
 * looks again later: when the lease has lapsed (the worker died), the job is reported abandoned.
 */
export interface SqsJobQueue extends JobQueue {
  /**
   * Stops holding a taken job's message without deleting it: it comes back to a take, as
   * redelivered, once its visibility lapses (a job whose end could not be written runs again).
   */
  letGo(versionId: string, jobId: string): void;
}

export function createSqsJobQueue(options: SqsJobQueueOptions): SqsJobQueue {
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
  const batchSize = Math.min(SQS_MAX_BATCH, Math.max(1, options.batchSize ?? SQS_MAX_BATCH));
  const orders = new Map<string, FairBatchOrder>();
  const orderOf = (versionId: string) => {
    let order = orders.get(versionId);
    if (!order) orders.set(versionId, (order = new FairBatchOrder(options.weightOf)));
    return order;
  };

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
  const stillHeld = async (queueUrl: string, message: ReceivedMessage) => {
    const until = leaseStore ? await leaseStore.expiresAt(message.jobId) : null;
    if (until === null || until <= now()) return false;
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, ...watchOf(message), DelaySeconds: Math.min(MAX_DELAY_SECONDS, visibilityTimeout) }));
    await client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.receiptHandle }));
    return true;
  };

  /**
   * Messages received but not taken go back as new copies, then the originals are deleted; a copy
   * that failed to send keeps its original, which comes back when its visibility lapses.
   */
  const passOver = async (queueUrl: string, messages: ReceivedMessage[]) => {
    if (messages.length === 0) return;
    try {
      const { Successful = [] } = await client.send(
        new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: messages.map((message, index) => resendEntryOf(message, String(index))) }),
      );
      const sent = Successful.map(({ Id }) => messages[Number(Id)]).filter((message) => message !== undefined);
      if (sent.length > 0)
        await client.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: sent.map((message, index) => ({ Id: String(index), ReceiptHandle: message.receiptHandle })),
          }),
        );
    } catch {
      // The job taken is unaffected: the messages not sent again come back when their visibility
      // lapses (one visibility timeout later), and a copy whose original also comes back is a
      // duplicate, which the store's conditional start skips.
    }
  };

  /** The job's oldest lease, no longer heartbeaten nor remembered. */
  const release = (versionId: string, jobId: string) => {
    const key = keyOf(versionId, jobId);
    const [lease, ...rest] = receipts.get(key) ?? [];
    if (!lease) return undefined;
    if (rest.length > 0) receipts.set(key, rest);
    else receipts.delete(key);
    clearInterval(lease.heartbeat);
    return lease;
  };

  return {
    async enqueue(entry, { delaySeconds } = {}) {
      const delay = delayOf(delaySeconds);
      await client.send(
        new SendMessageCommand({ QueueUrl: await queueUrlOf(entry.versionId), ...messageOf(entry, now()), ...(delay > 0 ? { DelaySeconds: delay } : {}) }),
      );
      await options.onEnqueued?.(entry.versionId);
    },

    async take(versionId) {
      const queueUrl = await queueUrlOf(versionId);
      const { Messages = [] } = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: batchSize,
          WaitTimeSeconds: waitTimeSeconds,
          VisibilityTimeout: visibilityTimeout,
          MessageSystemAttributeNames: [...RECEIVED_ATTRIBUTES],
        }),
      );
      const receivedAt = now();
      const candidates = Messages.map(receivedMessageOf).filter((message) => message !== null);
      const order = orderOf(versionId);
      let chosen = order.next(candidates);
      // A redelivered message whose job is still held gives way to a watch: the next is chosen.
      while (chosen?.redelivered && (await stillHeld(queueUrl, chosen))) {
        candidates.splice(candidates.indexOf(chosen), 1);
        chosen = order.next(candidates);
      }
      await passOver(
        queueUrl,
        candidates.filter((message) => message !== chosen),
      );
      if (!chosen) return null;
      order.took(chosen);
      const lease: Lease = {
        jobId: chosen.jobId,
        queueUrl,
        receiptHandle: chosen.receiptHandle,
        receivedAt,
        heartbeat: setInterval(() => void extend(lease), heartbeatMs),
      };
      // A lease must not keep the process alive on shutdown: the message simply comes back.
      lease.heartbeat.unref();
      const key = keyOf(versionId, chosen.jobId);
      receipts.set(key, [...(receipts.get(key) ?? []), lease]);
      return { jobId: chosen.jobId, redelivered: chosen.redelivered };
    },

    async ack(versionId, jobId) {
      const lease = release(versionId, jobId);
      if (!lease) return;
      try {
        await client.send(new DeleteMessageCommand({ QueueUrl: lease.queueUrl, ReceiptHandle: lease.receiptHandle }));
      } catch (error) {
        // Past SQS's cap the message was received again and this receipt is stale: a watch over
        // the job took its place, and finds it ended. Otherwise the failure is the caller's.
        if (now() - lease.receivedAt < maxVisibilityMs) throw error;
      }
    },

    letGo(versionId, jobId) {
      release(versionId, jobId);
    },

    async holdsNothing(versionId) {
      const { Attributes = {} } = await client.send(
        new GetQueueAttributesCommand({ QueueUrl: await queueUrlOf(versionId), AttributeNames: [...HELD_MESSAGE_COUNTS] }),
      );
      return HELD_MESSAGE_COUNTS.every((name) => Number(Attributes[name] ?? 0) === 0);
    },

    depth() {
      // Not cheap to ask here (an SQS call, and this method is synchronous). ECS scales each
      // version's service on the queue depth that CloudWatch reports, not on this number.
      return 0;
    },
  };
}
