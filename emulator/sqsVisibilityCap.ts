import type { ObservedCall, RefusedCall } from './awsProxy.js';

/**
 * SQS's cap on a message's invisibility: 12 hours from the receipt, however often it is
 * extended ("the maximum is 12 hours from the time of receipt"; a ChangeMessageVisibility that
 * would pass it is refused). moto has no cap, so the pass-through keeps each receipt's time
 * and refuses an extension past it with SQS's error; the message then comes back when its
 * current timeout lapses, as on SQS. Shortened by SLUICE_AWS_SQS_MAX_VISIBILITY_S to be reached in seconds.
 */
export class SqsVisibilityCap {
  private readonly receivedAt = new Map<string, number>();

  constructor(
    private readonly maxSeconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Notes when each received message's receipt was handed out. */
  observe(call: ObservedCall): void {
    if (call.target !== 'AmazonSQS.ReceiveMessage' || call.status !== 200) return;
    const messages = (call.response as { Messages?: { ReceiptHandle?: string }[] } | null)?.Messages ?? [];
    const now = this.now();
    for (const { ReceiptHandle } of messages) if (ReceiptHandle) this.receivedAt.set(ReceiptHandle, now);
    // Receipts past the cap can be extended no more: forgotten after twice its length.
    for (const [handle, at] of this.receivedAt) if (now - at > 2 * this.maxSeconds * 1000) this.receivedAt.delete(handle);
  }

  /** SQS's refusal of an extension past the cap; null lets the call through. */
  refuse(target: string, request: unknown): RefusedCall | null {
    if (target !== 'AmazonSQS.ChangeMessageVisibility') return null;
    const { ReceiptHandle, VisibilityTimeout } = (request ?? {}) as { ReceiptHandle?: string; VisibilityTimeout?: number };
    const at = ReceiptHandle === undefined ? undefined : this.receivedAt.get(ReceiptHandle);
    if (at === undefined || (this.now() - at) / 1000 + Number(VisibilityTimeout ?? 0) <= this.maxSeconds) return null;
    return {
      status: 400,
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-query-error': 'InvalidParameterValue;Sender' },
      body: {
        __type: 'com.amazonaws.sqs#InvalidParameterValue',
        message: `Value ${VisibilityTimeout} for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is beyond the limit [${this.maxSeconds} seconds].`,
      },
    };
  }
}
