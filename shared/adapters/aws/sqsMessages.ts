import type { Message, SendMessageBatchRequestEntry } from '@aws-sdk/client-sqs';
import { DEFAULT_PRIORITY, type QueueEntry } from '../../domain/scheduling.js';
import type { Candidate } from './fairBatchOrder.js';

/** SQS's longest delivery delay (DelaySeconds). */
export const MAX_DELAY_SECONDS = 15 * 60;

/**
 * A message's body: a job to run, or (watch) a look at a job that was taken before. Its
 * priority and push time order it among the messages a take receives; its organization is
 * the message group (MessageGroupId), which SQS fair queues share delivery by.
 */
export interface QueueMessage {
  jobId: string;
  watch?: true;
  priority?: number;
  pushedAt?: number;
}

/** A received message, as the take orders and leases it. */
export interface ReceivedMessage extends Candidate {
  jobId: string;
  receiptHandle: string;
}

/** The SQS system attributes a take asks for. */
export const RECEIVED_ATTRIBUTES = ['ApproximateReceiveCount', 'MessageGroupId'] as const;

/** The send of a queue entry: its body, and its organization as the message group. */
export function messageOf(entry: QueueEntry, pushedAt: number): { MessageBody: string; MessageGroupId?: string } {
  const body: QueueMessage = { jobId: entry.id, priority: entry.priority ?? DEFAULT_PRIORITY, pushedAt };
  return { MessageBody: JSON.stringify(body), ...groupOf(entry.organizationId) };
}

/** A delay SQS accepts: whole seconds from 0 to 15 minutes (retries back off 60 s at most). */
export function delayOf(seconds: number | undefined): number {
  return Number.isFinite(seconds) ? Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil(seconds ?? 0))) : 0;
}

/**
 * A message as received, or null for one with no body or receipt. It is redelivered when it is a
 * watch, or when it was received before (its last taker's lease lapsed).
 */
export function receivedMessageOf(message: Message): ReceivedMessage | null {
  if (!message.Body || !message.ReceiptHandle) return null;
  const { jobId, watch, priority, pushedAt } = JSON.parse(message.Body) as QueueMessage;
  return {
    jobId,
    receiptHandle: message.ReceiptHandle,
    organizationId: message.Attributes?.MessageGroupId ?? '',
    priority: priority ?? DEFAULT_PRIORITY,
    pushedAt: pushedAt ?? 0,
    redelivered: watch === true || Number(message.Attributes?.ApproximateReceiveCount ?? '1') > 1,
  };
}

/**
 * A received message sent again as a new one, visible now: the same job, group, priority and
 * push time, and a watch when it was redelivered, so that the copy keeps what a take must know.
 */
export function resendEntryOf(message: ReceivedMessage, id: string): SendMessageBatchRequestEntry {
  return { Id: id, ...sendOf(message, message.redelivered) };
}

/** The watch that replaces a received message whose job is still held elsewhere (sent with a delay). */
export function watchOf(message: ReceivedMessage): { MessageBody: string; MessageGroupId?: string } {
  return sendOf(message, true);
}

function sendOf(message: ReceivedMessage, watch: boolean): { MessageBody: string; MessageGroupId?: string } {
  const body: QueueMessage = { jobId: message.jobId, ...(watch ? { watch: true as const } : {}), priority: message.priority, pushedAt: message.pushedAt };
  return { MessageBody: JSON.stringify(body), ...groupOf(message.organizationId) };
}

/** Messages without a group are each a tenant of their own to SQS fair queues. */
function groupOf(organizationId: string): { MessageGroupId?: string } {
  return organizationId ? { MessageGroupId: organizationId } : {};
}
