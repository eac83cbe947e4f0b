// `BENCH_SECTIONS=fair-share npm run bench` (bench/run.ts): one organization's backlog against
// another's single jobs on a shared function with one replica.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTimestamp } from '../shared/domain/time.js';
import type { WireJob } from '../shared/domain/wire/job.js';
import { deployFunction, pushAndAwait } from './benchFunctions.js';
import { steadyRate } from './fairness.js';
import { createJsonClient } from './httpClient.js';
import { startServiceProcess } from './serviceProcess.js';
import { percentile, runConcurrently } from './stats.js';

type Client = ReturnType<typeof createJsonClient>;

const BACKLOG = Number(process.env.BENCH_FAIR_BACKLOG ?? 1000);
const JOB_MS = 10;
/** B's jobs, pushed one at a time (each once the last has ended), spread over A's drain. */
const B_JOBS = 5;
const IN_FLIGHT = 32;
const ROUNDS = 2;
const SHARED_FN = 'local/shared';
const SHARED = `import time
import sluice

@sluice.function(name="shared", minimum_replicas=1, maximum_replicas=1)
def shared() -> None:
    time.sleep(${JOB_MS / 1000})
`;

export interface FairShare {
  /** A's jobs started per second, alone and while B pushes (middle 80% of its jobs). */
  aloneRate: number;
  sharedRate: number;
  /** Each of B's jobs: push -> started_at in A-job times (1 / aloneRate), and A's jobs queued ahead of it at its push. */
  waits: { units: number; queuedAhead: number }[];
}

const micros = (timestamp: string | null | undefined) => (timestamp ? parseTimestamp(timestamp) : Number.POSITIVE_INFINITY);

/** Pushes A's backlog, `IN_FLIGHT` at once; their ids in push order. */
async function pushBacklog(call: Client): Promise<string[]> {
  const ids: string[] = new Array<string>(BACKLOG);
  await runConcurrently(BACKLOG, IN_FLIGHT, async (index) => {
    const { status, body } = await call<{ id?: string; detail?: string }>('POST', '/v2/push', { function: SHARED_FN, inputs: {} });
    if (status !== 200 || !body.id) throw new Error(`a push of A's backlog answered ${status}: ${body.detail}`);
    ids[index] = body.id;
  });
  return ids;
}

/** Every job once ended, `IN_FLIGHT` awaits at once. */
async function ended(call: Client, ids: string[]): Promise<WireJob[]> {
  const jobs: WireJob[] = [];
  await runConcurrently(ids.length, IN_FLIGHT, async (index) => {
    jobs.push((await call<WireJob>('GET', `/v2/jobs/${ids[index]}/await`)).body);
  });
  return jobs;
}

const startRate = (jobs: WireJob[]) => steadyRate(jobs.map((job) => micros(job.started_at) / 1000));

/** The function both organizations push to: A's, public, with one replica kept warm. */
async function deployShared(url: string, key: string, a: Client, dataDir: string): Promise<void> {
  await deployFunction({ url, key, call: a }, dataDir, 'shared', SHARED);
  const { status } = await a('POST', '/v2/functions/local/shared/edit', { visibility: 'public' });
  if (status !== 200) throw new Error(`making the shared function public answered ${status}`);
}

/** A key of a second organization, made as an operator does (`sluice keys create`) in the running service's data directory. */
function createOrganizationKey(dataDir: string, name: string): string {
  const cli = fileURLToPath(new URL('../bin/sluice.js', import.meta.url));
  const printed = execFileSync(process.execPath, [cli, 'keys', '--data-dir', dataDir, 'create', '--org', name], {
    env: { ...process.env, XDG_CONFIG_HOME: join(dataDir, 'config') },
    encoding: 'utf8',
  });
  return printed.trim().split('\n').at(-1) as string;
}

/** A's backlog drained alone: its jobs a second. */
async function alonePhase(a: Client): Promise<number> {
  return startRate(await ended(a, await pushBacklog(a)));
}

/** A's backlog drained while B pushes its jobs one after another, spread over `drainMs`. */
async function sharedPhase(a: Client, b: Client, drainMs: number): Promise<{ rate: number; theirs: WireJob[]; backlog: WireJob[] }> {
  const ids = await pushBacklog(a);
  const theirs: WireJob[] = [];
  for (let i = 0; i < B_JOBS; i++) {
    theirs.push(await pushAndAwait(b, 'shared'));
    await new Promise((resolve) => setTimeout(resolve, drainMs / (B_JOBS + 1)));
  }
  const backlog = await ended(a, ids);
  return { rate: startRate(backlog), theirs, backlog };
}

export async function benchFairShare(print: (line: string) => void): Promise<FairShare> {
  const began = performance.now();
  const service = await startServiceProcess();
  try {
    const a = createJsonClient(service.url, service.key, IN_FLIGHT);
    const b = createJsonClient(service.url, createOrganizationKey(service.dataDir, 'bravo'), 1);
    await deployShared(service.url, service.key, a, service.dataDir);
    // Alone and shared in turn, the first of each round alternating: the machine's drift falls on both.
    const aloneRates: number[] = [];
    const shared: Awaited<ReturnType<typeof sharedPhase>>[] = [];
    const alone = async () => void aloneRates.push(await alonePhase(a));
    const withB = async () => void shared.push(await sharedPhase(a, b, (BACKLOG / (aloneRates[0] as number)) * 1000));
    for (let round = 0; round < ROUNDS; round++) {
      for (const phase of round % 2 === 0 ? [alone, withB] : [withB, alone]) await phase();
    }
    const aloneRate = mean(aloneRates);
    const jobMicros = 1e6 / aloneRate;
    const waits = shared.flatMap(({ theirs, backlog }) =>
      theirs.map((job) => {
        const pushedAt = micros(job.created_at);
        return {
          units: (micros(job.started_at) - pushedAt) / jobMicros,
          queuedAhead: backlog.filter((other) => micros(other.created_at) <= pushedAt && micros(other.started_at) > pushedAt).length,
        };
      }),
    );
    const result = { aloneRate, sharedRate: mean(shared.map(({ rate }) => rate)), waits };
    report(result, print);
    print(`(section: ${((performance.now() - began) / 1000).toFixed(0)} s)`);
    return result;
  } finally {
    await service.stop();
  }
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

function report({ aloneRate, sharedRate, waits }: FairShare, print: (line: string) => void): void {
  const units = waits.map((wait) => wait.units);
  const ahead = waits.map((wait) => wait.queuedAhead);
  print(
    `\nFair share: a public function with one replica, ${JOB_MS} ms jobs; organization A pushes ${BACKLOG} at once, then organization B pushes ${B_JOBS} single jobs one after another during A's drain (${ROUNDS} rounds of A alone and A with B, in alternating order)`,
  );
  print(`one A job (1 / A's rate alone)             ${(1000 / aloneRate).toFixed(2)} ms`);
  print(
    `B's push -> started_at, in A-job times       p50 ${percentile(units, 50).toFixed(2)}, max ${Math.max(...units).toFixed(2)}   ` +
      `(first in, first out: behind the A jobs queued at its push, p50 ${percentile(ahead, 50)}, min ${Math.min(...ahead)})`,
  );
  print(
    `A's jobs/s alone / with B's                ${aloneRate.toFixed(1)} / ${sharedRate.toFixed(1)} (${sharedRate >= aloneRate ? '+' : ''}${((sharedRate / aloneRate - 1) * 100).toFixed(1)}%)`,
  );
}
