import { DEFAULT_PRIORITY, effectiveWeight, MAX_PRIORITY, MIN_PRIORITY } from '../../domain/scheduling.js';
import { BinaryHeap } from '../../domain/binaryHeap.js';
import { Fifo } from './fifo.js';

/** How much of the queue an organization gets, relative to the others (1 unless told). */
export type WeightOf = (organizationId: string) => number;

/** One organization's items: a FIFO per priority, the highest first. */
interface Lane<T> {
  organizationId: string;
  byPriority: (Fifo<T> | undefined)[];
  length: number;
  /** Virtual time of its next turn: the lane with the smallest goes next. */
  pass: number;
  /** Breaks ties between equal passes: the lane that has waited longest goes first. */
  ticket: number;
  queued: boolean;
}

const ORDER = (a: Lane<unknown>, b: Lane<unknown>) => a.pass < b.pass || (a.pass === b.pass && a.ticket < b.ticket);

/**
 * One version's waiting items, handed out fairly across the organizations that pushed them
 * (weighted round robin), then by priority (higher first), then in push order.
 *
 * The round robin is stride scheduling, deficit round robin's equivalent for one item at a time:
 * each turn advances the organization's pass by 1 / weight, and the organization with the
 * smallest pass goes next (a heap of the organizations with items: O(log organizations) a take).
 * An organization that starts waiting joins at the current virtual time, so it goes next: it
 * gets no credit for the time it had nothing queued, and one with a backlog cannot hold it back.
 */
export class FairQueue<T> {
  private readonly lanes = new Map<string, Lane<T>>();
  private readonly turns = new BinaryHeap<Lane<T>>(ORDER);
  private virtualTime = 0;
  private tickets = 0;
  private count = 0;

  constructor(private readonly weightOf: WeightOf = () => 1) {}

  get length(): number {
    return this.count;
  }

  push(item: T, organizationId: string, priority = DEFAULT_PRIORITY): void {
    let lane = this.lanes.get(organizationId);
    if (!lane) {
      lane = { organizationId, byPriority: [], length: 0, pass: this.virtualTime, ticket: 0, queued: false };
      this.lanes.set(organizationId, lane);
    }
    const level = Math.round(Math.min(MAX_PRIORITY, Math.max(MIN_PRIORITY, priority))) - MIN_PRIORITY;
    (lane.byPriority[level] ??= new Fifo<T>()).push(item);
    lane.length += 1;
    this.count += 1;
    if (!lane.queued) {
      // Its pass stays ahead when it just had a turn: leaving and coming back gains nothing.
      lane.pass = Math.max(lane.pass, this.virtualTime);
      this.enqueue(lane);
    }
  }

  shift(): T | undefined {
    const lane = this.turns.pop();
    if (!lane) return undefined;
    let item: T | undefined;
    for (let level = lane.byPriority.length - 1; item === undefined && level >= 0; level--) item = lane.byPriority[level]?.shift();
    lane.length -= 1;
    this.count -= 1;
    this.virtualTime = lane.pass;
    lane.pass += 1 / effectiveWeight(this.weightOf(lane.organizationId));
    if (lane.length > 0) this.enqueue(lane);
    else lane.queued = false;
    // Nobody waits: no turn is owed to anyone, and the lanes of organizations gone can go.
    if (this.count === 0) {
      this.lanes.clear();
      this.virtualTime = 0;
    }
    return item;
  }

  private enqueue(lane: Lane<T>): void {
    lane.ticket = this.tickets++;
    lane.queued = true;
    this.turns.push(lane);
  }
}
