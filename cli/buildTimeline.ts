import type { BuildStatus } from '../shared/domain/buildStatus.js';
import { BUILD_STATUSES } from '../shared/domain/buildStatus.js';
import type { WireVersion } from '../shared/domain/wire/version.js';
import type { LogLine } from './follow/logPages.js';

export type BuildEvent = { state: BuildStatus } | { line: LogLine };

/**
 * What a deploy prints after reading a version and its new log lines: every state the build
 * passed since `previous`, each placed among the lines by the time the version records for it.
 * Builds move forward one state at a time, so a build first read `ready` still passed building,
 * pushing and deploying, and says so.
 */
export function buildTimeline(previous: BuildStatus | '', version: WireVersion, lines: LogLine[]): BuildEvent[] {
  const events: BuildEvent[] = [];
  let next = 0;
  let at = -1n;
  for (const state of statesBetween(previous, version.build_status)) {
    at = maxOf(at, stateTime(version, state));
    while (next < lines.length && BigInt((lines[next] as LogLine).timestamp) < at) events.push({ line: lines[next++] as LogLine });
    events.push({ state });
  }
  for (; next < lines.length; next++) events.push({ line: lines[next] as LogLine });
  return events;
}

function statesBetween(from: BuildStatus | '', to: BuildStatus): BuildStatus[] {
  if (from === to) return [];
  // A failed build records no time for the state it failed in: its log says where it was.
  if (to === 'error') return from === '' ? ['queued', 'error'] : ['error'];
  return BUILD_STATUSES.slice(from === '' ? 0 : BUILD_STATUSES.indexOf(from) + 1, BUILD_STATUSES.indexOf(to) + 1);
}

const END_OF_TIME = 2n ** 63n;

/** When the version entered a state, in ns; -1 where it records none (the previous state's time applies). */
function stateTime(version: WireVersion, state: BuildStatus): bigint {
  const byState: Partial<Record<BuildStatus, string | null>> = {
    queued: version.queued_at,
    pushing: version.built_at,
    deploying: version.ready_at,
    ready: version.ready_at,
  };
  if (state === 'error') return END_OF_TIME;
  const timestamp = byState[state];
  return timestamp ? wireTimeNs(timestamp) : -1n;
}

/** `2024-12-15T01:41:59.195000` (UTC, microseconds) in nanoseconds since the epoch. */
function wireTimeNs(timestamp: string): bigint {
  return BigInt(Date.parse(`${timestamp.slice(0, 19)}Z`)) * 1_000_000n + BigInt(timestamp.slice(20, 26).padEnd(6, '0')) * 1000n;
}

const maxOf = (a: bigint, b: bigint) => (a > b ? a : b);
