import type { VersionRecord } from '../domain/version.js';
import type { Clock } from '../ports/clock.js';
import type { UsageService } from './usageService.js';

const MINUTE_SECONDS = 60;

interface IdleMinute {
  version: VersionRecord;
  minute: number;
  seconds: number;
}

/**
 * Idle time of minimum replicas when several processes each run some of a version's replicas
 * (on AWS, ECS tasks of `split` replicas each, none knowing of the others). Each process gathers
 * its idle seconds by wall-clock minute; once the minute is over they are claimed against the
 * version's minimum_replicas slots of that minute, each slot counted once across all processes.
 * Together the tasks bill at most minimum_replicas replicas a minute: the version's idle
 * minimum once, not once per task.
 */
export class SharedIdleUsage {
  private readonly minutes = new Map<string, IdleMinute>();

  constructor(
    private readonly usage: UsageService,
    private readonly clock: Clock,
  ) {}

  async record(version: VersionRecord, seconds: number): Promise<void> {
    const minute = Math.floor(this.clock.now() / 1e6 / MINUTE_SECONDS);
    const key = `${version.id}#${minute}`;
    const gathered = this.minutes.get(key) ?? { version, minute, seconds: 0 };
    gathered.seconds += seconds;
    this.minutes.set(key, gathered);
    await this.flush(minute);
  }

  /** Claims the minutes before `before`; every minute gathered when absent (a task stopping). */
  async flush(before = Number.POSITIVE_INFINITY): Promise<void> {
    for (const [key, gathered] of this.minutes) {
      if (gathered.minute >= before) continue;
      this.minutes.delete(key); // before any await: a concurrent flush must not claim it again
      await this.claim(gathered);
    }
  }

  /**
   * A minute's seconds are split over as many slots as whole replicas they amount to (rounded:
   * timers drift by milliseconds), and each slot is tried from the first until that many are
   * claimed or none is left.
   */
  private async claim({ version, minute, seconds }: IdleMinute): Promise<void> {
    const slots = Math.min(version.minimumReplicas, Math.max(1, Math.round(seconds / MINUTE_SECONDS)));
    let claimed = 0;
    for (let slot = 0; slot < version.minimumReplicas && claimed < slots; slot += 1) {
      if (await this.usage.recordIdleOnce(version, `idle#${version.id}#${minute}#${slot}`, seconds / slots)) claimed += 1;
    }
  }
}
