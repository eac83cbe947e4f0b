import { ChangeMessageVisibilityCommand, DeleteMessageCommand, GetQueueUrlCommand, ReceiveMessageCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { JobQueue } from '../../ports/jobQueue.js';

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
}

interface Lease {
  queueUrl: string;
  receiptHandle: string;
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
 * One SQS queue per version, carrying `{ jobId }` messages. A taken message stays in flight
 * under a visibility lease that a heartbeat extends until ack deletes it; a taker that dies
 * stops heartbeating, the lease lapses and the message comes back with a receive count above
 * one, which take reports as `redelivered`. Messages past the queue's maxReceiveCount go to its DLQ.
 */
export function createSqsJobQueue(options: SqsJobQueueOptions): JobQueue {
  const { client, queueUrlOf } = options;
  const visibilityTimeout = options.visibilityTimeoutSeconds ?? 60;
  const heartbeatMs = (options.heartbeatSeconds ?? 20) * 1000;
  const waitTimeSeconds = options.waitTimeSeconds ?? 20;
  // Leases by version and job, oldest first: a job sent back to the queue is enqueued again
  // (and may be taken again) before its first message is acked, so ack releases the oldest.
  const leases = new Map<string, Lease[]>();
  const keyOf = (versionId: string, jobId: string) => `${versionId}\n${jobId}`;

  const extend = async (lease: Lease) => {
    try {
      await client.send(new ChangeMessageVisibilityCommand({ QueueUrl: lease.queueUrl, ReceiptHandle: lease.receiptHandle, VisibilityTimeout: visibilityTimeout }));
    } catch {
      // A missed heartbeat is retried at the next tick; if the lease lapses meanwhile the job
      // is redelivered, and the store's conditional writes keep it from running twice.
    }
  };

  return {
    async enqueue(versionId, jobId) {
      await client.send(new SendMessageCommand({ QueueUrl: await queueUrlOf(versionId), MessageBody: JSON.stringify({ jobId }) }));
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
      const { jobId } = JSON.parse(message.Body) as { jobId: string };
      const lease: Lease = { queueUrl, receiptHandle: message.ReceiptHandle, heartbeat: setInterval(() => void extend(lease), heartbeatMs) };
      // A lease must not keep the process alive on shutdown: the message simply comes back.
      lease.heartbeat.unref();
      const key = keyOf(versionId, jobId);
      leases.set(key, [...(leases.get(key) ?? []), lease]);
      return { jobId, redelivered: Number(message.Attributes?.ApproximateReceiveCount ?? '1') > 1 };
    },

    async ack(versionId, jobId) {
      const key = keyOf(versionId, jobId);
      const [lease, ...rest] = leases.get(key) ?? [];
      if (!lease) return;
      if (rest.length > 0) leases.set(key, rest);
      else leases.delete(key);
      clearInterval(lease.heartbeat);
      await client.send(new DeleteMessageCommand({ QueueUrl: lease.queueUrl, ReceiptHandle: lease.receiptHandle }));
    },

    depth() {
      // Not cheap to ask here (an SQS call, and this method is synchronous). ECS scales each
      // version's service on the queue depth that CloudWatch reports, not on this number.
      return 0;
    },
  };
}
