import { existsSync, writeFileSync } from 'node:fs';

/** Where Debian's faketime package puts libfaketime (apt-get install faketime). */
const LIBFAKETIME = ['/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1', '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1'];

/**
 * A wall clock that jumps forward for the processes started with `environment()`: libfaketime
 * preloaded, reading its offset from a file the soak rewrites. Only the wall clock moves
 * (CLOCK_REALTIME: Date.now(), a restarted process's epoch); the monotonic clocks that timers
 * run on do not, as with an NTP step on a real host.
 */
export class ClockJump {
  private offsetSeconds = 0;
  readonly library = LIBFAKETIME.find((path) => existsSync(path)) ?? null;

  constructor(private readonly offsetFile: string) {
    writeFileSync(offsetFile, '+0\n');
  }

  /** Why the clock cannot jump here, or null when it can. */
  unavailable(): string | null {
    return this.library ? null : 'libfaketime is not installed (apt-get install faketime)';
  }

  environment(): Record<string, string> {
    if (!this.library) return {};
    return {
      LD_PRELOAD: this.library,
      FAKETIME_TIMESTAMP_FILE: this.offsetFile,
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
      // Read the file again at most each second, not at every clock read.
      FAKETIME_CACHE_DURATION: '1',
    };
  }

  jump(seconds: number): number {
    this.offsetSeconds += Math.round(seconds);
    writeFileSync(this.offsetFile, `+${this.offsetSeconds}\n`);
    return this.offsetSeconds;
  }
}
