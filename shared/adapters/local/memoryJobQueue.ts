import type { QueueEntry } from '../../domain/scheduling.js';
import type { JobQueue, TakenJob } from '../../ports/jobQueue.js';
import { DelayQueue } from './delayQueue.js';
import { FairQueue, type WeightOf } from './fairQueue.js';

/**
 * The local queue, in memory: per version, a FairQueue of job ids (each organization's share,
 * then priority, then push order), and the jobs whose retry backoff has not ended yet.
 * Durability comes from the store: a job stays `queued` there until a replica takes it, and at
 * start-up the queue is refilled from the store's queued jobs. `onEnqueue` wakes the version's
 * replica pool when a job becomes takeable.
 */
export class MemoryJobQueue implements JobQueue {
  private readonly queues = new Map<string, FairQueue<string>>();
  /** Jobs of each version waiting out a delay: counted in its depth, not yet takeable. */
  private readonly delayedCounts = new Map<string, number>();
  private readonly delayed = new DelayQueue<QueueEntry>((entry) => {
    this.countDelayed(entry.versionId, -1);
    this.admit(entry);
  });
  private listener: (versionId: string) => void = () => undefined;

  /** `weightOf`: each organization's share of a version's replicas (1 unless told). */
  constructor(private readonly options: { weightOf?: WeightOf } = {}) {}

  onEnqueue(listener: (versionId: string) => void): void {
    this.listener = listener;
  }

  async enqueue(entry: QueueEntry, options: { delaySeconds?: number } = {}): Promise<void> {
    const delaySeconds = options.delaySeconds ?? 0;
    if (delaySeconds > 0) {
      this.countDelayed(entry.versionId, 1);
      this.delayed.add(entry, delaySeconds * 1000);
    } else {
      this.admit(entry);
    }
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
    return (this.queues.get(versionId)?.length ?? 0) + (this.delayedCounts.get(versionId) ?? 0);
  }

  private admit({ id, versionId, organizationId, priority }: QueueEntry): void {
    let queue = this.queues.get(versionId);
    if (!queue) this.queues.set(versionId, (queue = new FairQueue(this.options.weightOf)));
    queue.push(id, organizationId, priority);
    this.listener(versionId);
  }

  private countDelayed(versionId: string, change: number): void {
    const count = (this.delayedCounts.get(versionId) ?? 0) + change;
    if (count === 0) this.delayedCounts.delete(versionId);
    else this.delayedCounts.set(versionId, count);
  }
}
