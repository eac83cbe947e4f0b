import type { Clock } from '../ports/clock.js';

/**
 * Wall-clock time with sub-millisecond resolution: the epoch at start-up plus the monotonic
 * high-resolution timer, so timestamps never go backwards within the process.
 */
export function createSystemClock(): Clock {
  // performance.timeOrigin has sub-millisecond precision (Date.now() has not), so times taken
  // in different processes on one machine compare to the microsecond.
  const hrtimeAtStart = process.hrtime.bigint();
  const epochNsAtStart = BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
  let lastNs = 0n;
  const nowNs = (): bigint => {
    const ns = epochNsAtStart + (process.hrtime.bigint() - hrtimeAtStart);
    lastNs = ns > lastNs ? ns : lastNs + 1n;
    return lastNs;
  };
  return {
    now: () => Number(nowNs() / 1000n),
    nowNs,
  };
}
