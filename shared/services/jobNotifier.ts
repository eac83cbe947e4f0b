import type { JobEvent, JobEvents } from '../ports/jobEvents.js';

/** Work that must follow a job's move durably (webhook deliveries, usage), awaited by the move. */
export type JobObserver = (event: JobEvent) => Promise<void>;

/**
 * Tells everyone of a job's move: waiters (await) at once through JobEvents, then the
 * observers, awaited in order, so the move's caller continues only once their records exist.
 */
export class JobNotifier {
  private readonly observers: JobObserver[] = [];

  constructor(
    private readonly events: JobEvents,
    private readonly onObserverError: (error: unknown, event: JobEvent) => void,
  ) {}

  observe(observer: JobObserver): void {
    this.observers.push(observer);
  }

  async notify(event: JobEvent): Promise<void> {
    this.events.publish(event);
    for (const observer of this.observers) {
      try {
        await observer(event);
      } catch (error) {
        // The job's move stands; a failed observer is reported, not turned into a job failure.
        this.onObserverError(error, event);
      }
    }
  }
}
