import { effectiveWeight } from '../../domain/scheduling.js';

/** What a take knows of a received message to order it (see sqsMessages.ts). */
export interface Candidate {
  organizationId: string;
  priority: number;
  /** When its job was pushed (epoch ms): the older first, at equal share and priority. */
  pushedAt: number;
  /** Taken before and never acknowledged: its job is recovered (or its stale message dropped) first. */
  redelivered: boolean;
}

/**
 * The order a worker takes jobs in, among the messages one receive returned: redelivered
 * messages first (recovering an abandoned job comes before starting new ones), then weighted
 * fair share across organizations, then priority (higher first), then push order.
 *
 * Fair share is start-time fair queuing, the virtual-time form of deficit round robin: each job
 * taken moves its organization's tag on by 1 / weight, and the organization with the lowest tag
 * among those present goes next. An organization first seen (or seen again after it was absent
 * from what takes received) starts at the current virtual time: it gets its share from then on,
 * not a burst for the time away. The tags live in this worker: each worker is fair among what it sees.
 */
export class FairBatchOrder {
  /** Each organization's tag: the virtual time its next job starts at. */
  private readonly tags = new Map<string, number>();
  private virtualTime = 0;

  constructor(private readonly weightOf: (organizationId: string) => number = () => 1) {}

  /** The candidate to take next (nothing is charged until `took`); notes the organizations present. */
  next<T extends Candidate>(candidates: readonly T[]): T | undefined {
    this.see(candidates);
    const redelivered = candidates.filter((candidate) => candidate.redelivered).sort(byPriorityThenAge)[0];
    if (redelivered) return redelivered;
    let chosen: T | undefined;
    for (const candidate of candidates) {
      const order = chosen ? this.tagOf(candidate) - this.tagOf(chosen) || byPriorityThenAge(candidate, chosen) : -1;
      if (order < 0) chosen = candidate;
    }
    return chosen;
  }

  /** A job of this organization was taken: it is charged to its share. */
  took({ organizationId }: Candidate): void {
    const start = this.tagOf({ organizationId });
    this.virtualTime = Math.max(this.virtualTime, start);
    this.tags.set(organizationId, start + 1 / effectiveWeight(this.weightOf(organizationId)));
  }

  private see(candidates: readonly Candidate[]): void {
    const present = new Set(candidates.map(({ organizationId }) => organizationId));
    // An absent organization the virtual time has caught up with is no different from one never seen.
    for (const [id, tag] of this.tags) if (!present.has(id) && tag <= this.virtualTime) this.tags.delete(id);
    for (const id of present) if (!this.tags.has(id)) this.tags.set(id, this.virtualTime);
  }

  private tagOf({ organizationId }: Pick<Candidate, 'organizationId'>): number {
    return this.tags.get(organizationId) ?? this.virtualTime;
  }
}

function byPriorityThenAge(a: Candidate, b: Candidate): number {
  return b.priority - a.priority || a.pushedAt - b.pushedAt;
}
