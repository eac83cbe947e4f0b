import type { Clock } from '../ports/clock.js';

/**
 * Wall-clock time with sub-millisecond resolution: the epoch at start-up plus the monotonic
 * high-resolution timer, so timestamps never go backwards within the process.
 */
export function createSystemClock(): Clock {
  const epochNsAtStart = BigInt(Date.now()) * 1_000_000n;
  const hrtimeAtStart = process.hrtime.bigint();
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
