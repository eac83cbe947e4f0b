import { parseTimestamp } from '../shared/domain/time.js';
import type { WireJob } from '../shared/domain/wire/job.js';
import type { createJsonClient } from './httpClient.js';
import { runLoadGenerator } from './loadGenerator.js';
import { holdReplicas } from './jobShapes.js';
import { HEADLINE_FUNCTION, headlineBody } from './pushRequest.js';
import { runConcurrently, wallMs } from './stats.js';

type Client = ReturnType<typeof createJsonClient>;

export interface Fairness {
  /** Jobs finished per second with a backlog and nobody pushing. */
  drainRate: number;
  /** Jobs finished per second while every client pushes as fast as it is answered. */
  floodFinishRate: number;
  /** Pushes answered per second during the flood: accepted, and refused with 429. */
  acceptedRate: number;
  refusedRate: number;
}

const IN_FLIGHT = 32;

const push = (call: Client) => call<{ id?: string }>('POST', '/v2/push', headlineBody());

/** Pushes `count` jobs, `IN_FLIGHT` at once, without waiting for them to run; their ids. */
async function pushMany(call: Client, count: number): Promise<string[]> {
  const ids: string[] = [];
  await runConcurrently(count, IN_FLIGHT, async () => {
    const { status, body } = await push(call);
    if (status === 200 && body.id) ids.push(body.id);
  });
  return ids;
}

/** Waits for every job to end (the last pushed, then the rest), and answers when each completed (epoch ms). */
async function completionTimes(call: Client, ids: string[]): Promise<number[]> {
  const times: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < ids.length) {
        const job = (await call<WireJob>('GET', `/v2/jobs/${ids[next++]}/await`)).body;
        times.push(parseTimestamp(job.completed_at as string) / 1000);
      }
    }),
  );
  return times;
}

/**
 * Jobs a second in the middle 80% of `times` (by count): what the replicas sustain, without the
 * ramp while they start and the tail while the last jobs end.
 */
export function steadyRate(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  const from = Math.floor(sorted.length * 0.1);
  const to = Math.ceil(sorted.length * 0.9) - 1;
  return (to - from) / (((sorted[to] as number) - (sorted[from] as number)) / 1000);
}

/** Polls (cheaply, 10 times a second) until the job has ended. */
async function untilEnded(call: Client, id: string): Promise<void> {
  while (!['finished', 'error', 'cancelled'].includes((await call<WireJob>('GET', `/v2/jobs/${id}`)).body.status as string)) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const rateWithin = (times: number[], from: number, to: number) => times.filter((time) => time >= from && time <= to).length / ((to - from) / 1000);

/**
 * Fairness under a flood of pushes: the drain rate (a backlog, no pushes) against the rate jobs
 * finish while 32 clients push without pause for `floodSeconds`, the queue held at its bound
 * (`backlog` jobs: the service's SLUICE_MAX_QUEUED_PER_VERSION). `during` runs around the flood.
 */
export async function benchFairness(
  call: Client,
  target: { url: string; key: string; replicas: number },
  backlog: number,
  floodSeconds: number,
  during: { start(): Promise<void>; end(): Promise<void> },
): Promise<Fairness> {
  let floodStart = 0;
  // The backlog is queued with no replica to run it, then drained by as many as before: pushed
  // while they run, most of it would end while it is pushed, and the drain would be a few
  // hundred jobs measured over a few dozen milliseconds.
  await holdReplicas(call, HEADLINE_FUNCTION, 0);
  const drained = await pushMany(call, backlog);
  if (drained.length !== backlog) throw new Error(`only ${drained.length} of the ${backlog} backlog jobs were accepted`);
  await holdReplicas(call, HEADLINE_FUNCTION, target.replicas);
  await untilEnded(call, drained[drained.length - 1] as string);
  const drainRate = steadyRate(await completionTimes(call, drained));

  const queued = await pushMany(call, backlog);
  // The flood comes from a generator of its own (like wrk): its CPU is not the service's to lose.
  const flood = await runLoadGenerator<{ accepted: string[]; refused: number; failures: string[]; seconds: number }>(
    './pushFlood.ts',
    [target.url, target.key, String(IN_FLIGHT), String(floodSeconds)],
    async () => {
      await during.start();
      floodStart = wallMs();
    },
  );
  await during.end();
  if (flood.failures.length > 0) throw new Error(`the push flood had answers other than 200 and 429: ${flood.failures.join('; ')}`);
  const flooded = flood.accepted;
  const floodSpan = flood.seconds * 1000;
  const all = [...queued, ...flooded];
  await untilEnded(call, all[all.length - 1] as string);
  const times = await completionTimes(call, all);
  return {
    drainRate,
    floodFinishRate: rateWithin(times, floodStart, floodStart + floodSpan),
    acceptedRate: flooded.length / (floodSpan / 1000),
    refusedRate: flood.refused / (floodSpan / 1000),
  };
}
