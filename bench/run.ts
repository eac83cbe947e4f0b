// `npm run bench`: the same job workload on Sluice and on BullMQ, side by side.
import { execFileSync } from 'node:child_process';
import { openBullmq } from './bullmqTarget.js';
import { benchReads } from './reads.js';
import { benchAwsSection } from './awsSection.js';
import { benchFairShare } from './fairShare.js';
import { openSluice } from './sluiceTarget.js';
import type { Figures } from './stats.js';
import { benchWorkloads } from './workloads.js';

const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 1000);
/** Each side's throughput jobs, run in ROUNDS rounds that alternate between the sides: the VM's drift falls on both. */
const TOTAL = Number(process.env.BENCH_TOTAL ?? 20000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PER_ROUND = Math.ceil(TOTAL / ROUNDS);
/** Jobs each side runs at full concurrency, unmeasured, before its throughput run: both are measured warm (JIT, caches). */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2000);
const IN_FLIGHT = 32;
const REPLICAS = 2;
// Sections to run: `queue` (Sluice vs BullMQ on jobs returning their input), `workloads` (the examples that install
// packages), `aws` (the AWS mode's cost model, on npm run aws:local: bench/awsSection.ts), and on
// request `fair-share` (one organization's backlog against another's jobs, over a minute: bench/fairShare.ts).
const SECTIONS = new Set((process.env.BENCH_SECTIONS ?? 'queue,workloads').split(','));
/** The fairness run's backlog, which is also the service's queue bound (SLUICE_MAX_QUEUED_PER_VERSION): large enough that its drain lasts about a second. */
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 5000);
const FLOOD_S = Number(process.env.BENCH_FLOOD_S ?? 5);

function hasRedis(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

type Metric = Exclude<keyof Figures, 'cpuPerJob'>;
const ROWS: [string, Metric | ((figures: Figures) => number), string, 'lower' | 'higher'][] = [
  ['push -> started_at p50', 'pushToStartP50', 'ms', 'lower'],
  ['push -> started_at p99', 'pushToStartP99', 'ms', 'lower'],
  ['push -> result (await) p50', 'pushToResultP50', 'ms', 'lower'],
  ['push -> result (await) p99', 'pushToResultP99', 'ms', 'lower'],
  ['await wake-up p50', 'awaitWakeP50', 'ms', 'lower'],
  ['await wake-up p99', 'awaitWakeP99', 'ms', 'lower'],
  [`throughput (${ROUNDS}x${PER_ROUND}, ${IN_FLIGHT} in flight)`, 'throughput', 'jobs/s', 'higher'],
  ['peak RSS (service / Redis + worker)', 'peakRssMb', 'MB', 'lower'],
  ['CPU per job: service / Redis', (f) => f.cpuPerJob.service, 'µs', 'lower'],
  ['CPU per job: replicas / worker', (f) => f.cpuPerJob.workers, 'µs', 'lower'],
  ['CPU per job: client', (f) => f.cpuPerJob.client, 'µs', 'lower'],
];

const format = (value: number) => (Number.isNaN(value) ? 'n/a' : value >= 100 ? value.toFixed(0) : value.toFixed(2));

if (SECTIONS.has('queue')) {
  process.stdout.write(
    `Sluice vs BullMQ on ${(await import('node:os')).cpus().length} cores: jobs that return their input (a short string), ${REPLICAS} warm workers, ${SEQUENTIAL} sequential jobs for latencies, ${WARMUP} unmeasured jobs at full concurrency before the throughput run\n`,
  );
  process.stdout.write(
    'Sluice: HTTP push + await, SQLite (WAL), Python replicas as child processes; throughput load from its own lean process (bench/jobLoad.ts: raw keep-alive sockets)\n',
  );
  process.stdout.write(
    'BullMQ: Queue.add + waitUntilFinished from the bench process (its client library is part of its cost), Redis 7 (no persistence), a worker process returning job.data.value; its job times are whole milliseconds\n',
  );
  process.stdout.write(
    `Throughput: ${ROUNDS} rounds of ${PER_ROUND} jobs a side, the sides taking turns (BENCH_TOTAL, BENCH_ROUNDS); each side's rate is its jobs over its rounds' seconds\n\n`,
  );
  const sluiceSide = await openSluice({
    sequential: SEQUENTIAL,
    warmup: WARMUP,
    perRound: PER_ROUND,
    inFlight: IN_FLIGHT,
    backlog: BACKLOG,
    floodSeconds: FLOOD_S,
  });
  let bullmq: Figures | null = null;
  /** Sluice's and BullMQ's rates, round by round: how much the VM drifted meanwhile. */
  const roundRates: [number, number][] = [];
  let measured: Awaited<ReturnType<typeof sluiceSide.finish>>;
  try {
    const bullmqSide = hasRedis()
      ? await openBullmq({ sequential: SEQUENTIAL, warmup: WARMUP, perRound: PER_ROUND, inFlight: IN_FLIGHT, concurrency: REPLICAS })
      : null;
    if (!bullmqSide) process.stdout.write('redis-server not found: install it (Debian: apt-get install redis-server) to compare with BullMQ.\n\n');
    try {
      // Each side in turn, the first of each round alternating: neither always runs after the
      // other. An unmeasured round of each first: a side's first round after sitting idle while
      // the other opened ran 10-15% slower than its later ones.
      for (const side of [sluiceSide, bullmqSide]) await side?.round(false);
      for (let round = 0; round < ROUNDS; round++) {
        const sides = round % 2 === 0 ? [sluiceSide, bullmqSide] : [bullmqSide, sluiceSide];
        const [first, second] = [await sides[0]?.round(), await sides[1]?.round()];
        const [ours, theirs] = round % 2 === 0 ? [first, second] : [second, first];
        if (ours && theirs) roundRates.push([ours.jobs / ours.seconds, theirs.jobs / theirs.seconds]);
      }
      bullmq = (await bullmqSide?.finish()) ?? null;
    } finally {
      await bullmqSide?.stop();
    }
    measured = await sluiceSide.finish();
  } finally {
    await sluiceSide.stop();
  }
  const { figures: sluice, extras } = measured;

  const widths = [40, 14, 14, 22];
  const line = (cells: string[]) => cells.map((cell, i) => `${cell} `.padEnd(widths[i] as number)).join('') + '\n';
  process.stdout.write(line(['metric', 'Sluice', 'BullMQ', 'Sluice vs BullMQ']));
  for (const [label, key, unit, better] of ROWS) {
    const pick = (figures: Figures) => (typeof key === 'function' ? key(figures) : figures[key]);
    const ours = pick(sluice);
    const theirs = bullmq ? pick(bullmq) : Number.NaN;
    const ratio = better === 'higher' ? ours / theirs : theirs / ours;
    // A zero (BullMQ's whole-millisecond stamps can give one) makes no ratio.
    const verdict = !Number.isFinite(ratio) || ratio === 0 ? 'n/a' : `${ratio.toFixed(2)}x ${ratio >= 1 ? 'better' : 'worse'}`;
    process.stdout.write(line([label, `${format(ours)} ${unit}`, `${format(theirs)} ${unit}`, verdict]));
  }

  const rates = roundRates.map(([ours, theirs]) => `${format(ours)}/${format(theirs)} (${(ours / theirs).toFixed(2)}x)`);
  if (rates.length > 0) process.stdout.write(`throughput by round, Sluice/BullMQ jobs/s: ${rates.join(', ')}\n`);

  const { trivialGet, fairness, loopDelay } = extras;
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  process.stdout.write(
    `\nSluice alone (same run; load average ${(await import('node:os'))
      .loadavg()
      .map((load) => load.toFixed(1))
      .join(' ')})\n`,
  );
  process.stdout.write(line(['service writes per job (syscalls, KB)', `${format(extras.writesPerJob)}`, `${format(extras.kbWrittenPerJob)} KB`, '']));
  process.stdout.write(
    line([
      'trivial GET /v2/organization',
      `${format(trivialGet.sluice)} req/s`,
      '',
      `${(trivialGet.sluice / trivialGet.plain).toFixed(2)}x plain node:http (${format(trivialGet.plain)} req/s)`,
    ]),
  );
  if (extras.wrk)
    process.stdout.write(
      line([
        'wrk, headline jobs (bench/wrk/pushAwait.lua)',
        `${format(extras.wrk.jobsPerSecond)} jobs/s`,
        `${extras.wrk.failures} failed`,
        `${(extras.wrk.jobsPerSecond / sluice.throughput).toFixed(2)}x the built-in generator`,
      ]),
    );
  else process.stdout.write('wrk is not installed (apt-get install wrk): the independent generator was not run\n');
  // Issue 33: the headline's service CPU per job against a job with no output's (target: at most 1.2x).
  for (const shape of extras.shapes)
    process.stdout.write(
      line([
        `${shape.name} (one round)`,
        `${format(shape.jobsPerSecond)} jobs/s`,
        `${format(shape.serviceMicrosPerJob)} µs/job`,
        `headline's service CPU ${(sluice.cpuPerJob.service / shape.serviceMicrosPerJob).toFixed(2)}x`,
      ]),
    );
  const stream = extras.streamLatency;
  process.stdout.write(
    line([`streamed output, yield -> client p50/p99`, `${ms(stream.p50)} / ${ms(stream.p99)}`, `max ${ms(stream.max)}`, `${stream.outputs} outputs`]),
  );
  process.stdout.write(line([`drain rate (${BACKLOG} queued, middle 80%)`, `${format(fairness.drainRate)} jobs/s`, '', '']));
  process.stdout.write(
    line([
      `finishing during a ${FLOOD_S} s push flood`,
      `${format(fairness.floodFinishRate)} jobs/s`,
      '',
      `${(fairness.floodFinishRate / fairness.drainRate).toFixed(2)}x the drain rate`,
    ]),
  );
  process.stdout.write(
    line(['pushes in the flood: accepted / 429', `${format(fairness.acceptedRate)} /s`, `${format(fairness.refusedRate)} /s`, `queue bound ${BACKLOG}`]),
  );
  for (const [phase, delay] of Object.entries(loopDelay)) {
    process.stdout.write(
      line([`event-loop delay, ${phase} p50/p99/max`, `${ms(delay.p50)} / ${ms(delay.p99)}`, `max ${ms(delay.max)}`, `p99.9 ${ms(delay.p999)}`]),
    );
  }
}

if (SECTIONS.has('workloads')) {
  process.stdout.write("\nWorkloads: the examples that install packages (pip through this machine's configuration), one replica each\n");
  process.stdout.write(
    'cold start: push -> first output with no replica running (process start, imports, __setup__, the job); warm: the same on a running replica\n\n',
  );
  const figures = await benchWorkloads((text) => process.stdout.write(`${text}\n`));
  const columns = [24, 32, 17, 19, 12, 12, 12];
  const row = (cells: string[]) => cells.map((cell, i) => cell.padEnd(columns[i] as number)).join('') + '\n';
  process.stdout.write(row(['example', 'input', 'deploy -> ready', 'redeploy -> ready', 'cold start', 'warm p50', 'warm max']));
  for (const f of figures) {
    process.stdout.write(
      row([
        f.example,
        f.input,
        `${f.deployToReady.toFixed(1)} s`,
        `${f.redeployToReady.toFixed(1)} s`,
        `${format(f.coldStart)} ms`,
        `${format(f.warmP50)} ms`,
        `${format(f.warmMax)} ms`,
      ]),
    );
  }
}

if (SECTIONS.has('fair-share')) await benchFairShare((text) => process.stdout.write(`${text}\n`));

if (SECTIONS.has('aws')) await benchAwsSection((line) => process.stdout.write(`${line}\n`));

// The reads at a million jobs take minutes to grow: on request only.
if (process.env.BENCH_READS === '1') await benchReads();
else process.stdout.write('\nBENCH_READS=1 adds every list and read at 10k and 1M jobs (bench/reads.ts; minutes).\n');
