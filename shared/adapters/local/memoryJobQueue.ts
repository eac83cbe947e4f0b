import type { QueueEntry } from '../../domain/scheduling.js';
import type { JobQueue, TakenJob } from '../../ports/jobQueue.js';
import { Fifo } from './fifo.js';

/**
 * The local queue: a FIFO of job ids per version, in memory. Durability comes from the store:
 * a job stays `queued` there until a replica takes it, and at start-up the queue is refilled
 * from the store's queued jobs. `onEnqueue` wakes the version's replica pool.
 */
export class MemoryJobQueue implements JobQueue {
  private readonly queues = new Map<string, Fifo<string>>();
  private listener: (versionId: string) => void = () => undefined;

  onEnqueue(listener: (versionId: string) => void): void {
    this.listener = listener;
  }

  async enqueue({ versionId, id: jobId }: QueueEntry): Promise<void> {
    let queue = this.queues.get(versionId);
    if (!queue) this.queues.set(versionId, (queue = new Fifo()));
    queue.push(jobId);
    this.listener(versionId);
  }

  async take(versionId: string): Promise<TakenJob | null> {
    const queue = this.queues.get(versionId);
    const jobId = queue?.shift();
    if (queue?.length === 0) this.queues.delete(versionId);
    // In one process a taker cannot die without the queue: nothing is ever redelivered.
    return jobId === undefined ? null : { jobId, redelivered: false };
  }

  async ack(): Promise<void> {
    // Taking removed it already.
  }

  depth(versionId: string): number {
    return this.queues.get(versionId)?.length ?? 0;
  }
}
