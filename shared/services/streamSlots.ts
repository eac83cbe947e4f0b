import { RateLimitedError } from '../domain/errors.js';
import type { EventStream } from './eventStream.js';

/** Open event streams an organization may hold in one process: each reads the store whenever it wakes. */
export const MAX_OPEN_STREAMS_PER_ORGANIZATION = 100;
const RETRY_AFTER_S = 5;

/**
 * Counts each organization's open event streams, so one organization's thousand idle streams
 * cannot make every stored log line wake a thousand reads for everyone else. A stream holds its
 * slot while it runs and gives it back however it ends.
 */
export class StreamSlots {
  private readonly open = new Map<string, number>();

  constructor(private readonly max = MAX_OPEN_STREAMS_PER_ORGANIZATION) {}

  /** The stream, counted against the organization; 429 at once when it holds the most already. */
  hold(organizationId: string, stream: EventStream): EventStream {
    this.assertRoom(organizationId);
    return (signal) => this.counted(organizationId, stream, signal);
  }

  count(organizationId: string): number {
    return this.open.get(organizationId) ?? 0;
  }

  private assertRoom(organizationId: string): void {
    if (this.count(organizationId) < this.max) return;
    throw new RateLimitedError(`This organization has ${this.max} event streams open, the most it may: close some, then try again.`, RETRY_AFTER_S);
  }

  private async *counted(organizationId: string, stream: EventStream, signal: AbortSignal) {
    this.assertRoom(organizationId);
    this.open.set(organizationId, this.count(organizationId) + 1);
    try {
      yield* stream(signal);
    } finally {
      const left = this.count(organizationId) - 1;
      if (left > 0) this.open.set(organizationId, left);
      else this.open.delete(organizationId);
    }
  }
}
