import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTimestamp } from '../shared/domain/time.js';
import type { WireJob } from '../shared/domain/wire/job.js';
import { benchFairness, type Fairness } from './fairness.js';
import { createJsonClient } from './httpClient.js';
import { startLoadGenerator } from './loadGenerator.js';
import { loopDelayProbe, type LoopDelay } from './loopDelay.js';
import { startServiceProcess } from './serviceProcess.js';
import type { Figures, Round } from './stats.js';
import { benchTrivialGet } from './trivialGet.js';
import { benchShapes, deployWarm, type ShapeRound } from './jobShapes.js';
import { hasWrk, wrkLoad, type WrkLoad } from './wrkLoad.js';
import { benchStreamLatency, type StreamLatency } from './streamLatency.js';
import { HEADLINE_FUNCTION, headlineBody, headlineDefinition } from './pushRequest.js';
import { cpuSeconds, figuresFrom, peakRssMb, summedRounds, wallMs } from './stats.js';

/** The headline function's warm replicas, as many as BullMQ's worker runs at once. */
const HEADLINE_REPLICAS = 2;
/** wrk's run: long enough to count thousands of jobs. */
const WRK_SECONDS = 5;
/** Jobs of 10 streamed outputs whose delay to a following client is measured, one at a time. */
const STREAM_JOBS = 30;

/** A wire timestamp to epoch milliseconds, keeping its microseconds. */
const epochMs = (timestamp: string) => parseTimestamp(timestamp) / 1000;

/** jobLoad.ts's report. */
interface JobLoad {
  jobs: number;
  seconds: number;
  failures: number;
  firstFailures: string[];
  cpuMicros: number;
}

/** What only the Sluice side measures: its own costs, its HTTP path against a plain server, fairness. */
export interface SluiceExtras {
  /** Write syscalls and bytes written by the service per job in the throughput rounds (/proc/PID/io). */
  writesPerJob: number;
  kbWrittenPerJob: number;
  trivialGet: { sluice: number; plain: number };
  fairness: Fairness;
  /** Milliseconds from a function's yield to the output's event reaching a client following the job. */
  streamLatency: StreamLatency;
  /** wrk's rate on the headline jobs (bench/wrkLoad.ts); null where wrk is not installed. */
  wrk: WrkLoad | null;
  /** One round each of jobs of other shapes (no output, 10 streamed outputs), after the headline's. */
  shapes: ShapeRound[];
  /** The service's event-loop delay during the throughput rounds (each figure its worst round's) and during the flood. */
  loopDelay: { throughput: LoopDelay; flood: LoopDelay };
}

/** The Sluice side of the throughput rounds, open between its latencies and its own measures. */
export interface SluiceSide {
  /** One round of the throughput run, counted in its figures unless `measured` is false. */
  round(measured?: boolean): Promise<Round>;
  /** The figures (latencies, and the rounds summed), then what only Sluice measures. */
  finish(): Promise<{ figures: Figures; extras: SluiceExtras }>;
  stop(): Promise<void>;
}

/**
 * The embedded service as its own process, the headline Python function with two warm replicas: its
 * latencies measured, its load generator warmed up, ready for throughput rounds of `perRound` jobs.
 */
export async function openSluice(options: {
  sequential: number;
  warmup: number;
  perRound: number;
  inFlight: number;
  backlog: number;
  floodSeconds: number;
}): Promise<SluiceSide> {
  const profile = process.env.BENCH_CPU_PROFILE ? [`--cpu-prof`, `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`] : [];
  const probe = loopDelayProbe(join(await mkdtemp(join(tmpdir(), 'sluice-bench-loop-')), 'loop-delay.json'));
  const {
    url,
    key,
    dataDir,
    child: service,
    stop,
  } = await startServiceProcess([...profile, ...probe.nodeArgs], { ...probe.env, SLUICE_MAX_QUEUED_PER_VERSION: String(options.backlog) });
  try {
    const call = createJsonClient(url, key, options.inFlight);
    await deployWarm(call, dataDir, HEADLINE_FUNCTION, headlineDefinition, HEADLINE_REPLICAS);

    const samples: { sent: number; acknowledged: number; received: number; created: number; started: number; completed: number }[] = [];
    for (let i = 0; i < options.sequential; i++) {
      const sent = wallMs();
      const pushed = (await call<{ id: string }>('POST', '/v2/push', headlineBody())).body;
      const acknowledged = wallMs();
      const job = (await call<WireJob>('GET', `/v2/jobs/${pushed.id}/await`)).body;
      const received = wallMs();
      samples.push({
        sent,
        acknowledged,
        received,
        created: epochMs(job.created_at as string),
        started: epochMs(job.started_at as string),
        completed: epochMs(job.completed_at as string),
      });
    }
    // The service's clock against ours: each created_at was stamped between our send and its
    // acknowledgement, so the offset lies in [created - acknowledged, created - sent] for every
    // job; the intersection of those windows pins it down.
    const low = Math.max(...samples.map((s) => s.created - s.acknowledged));
    const high = Math.min(...samples.map((s) => s.created - s.sent));
    const offset = (low + high) / 2;
    const latencies = {
      pushToStart: samples.map((s) => s.started - offset - s.sent),
      pushToResult: samples.map((s) => s.received - s.sent),
      awaitWake: samples.map((s) => s.received - (s.completed - offset)),
    };
    // The throughput load comes from its own lean process (warmed up before it says it is ready),
    // so the client's CPU weighs on the figure as little as it can; the service's costs, writes
    // and event-loop delay are read just around each round.
    const generator = await startLoadGenerator<JobLoad>('./jobLoad.ts', [url, key, String(options.inFlight), String(options.perRound), String(options.warmup)]);
    const rounds: Round[] = [];
    const written = { syscw: 0, wchar: 0 };
    const delays: LoopDelay[] = [];
    return {
      async round(measured = true) {
        let before = { service: { own: 0, children: 0 }, io: { syscw: 0, wchar: 0 } };
        const load = await generator.run(async () => {
          before = { service: await cpuSeconds(service.pid as number), io: await processIo(service.pid as number) };
          await probe.read(service);
        });
        if (load.failures > 0) throw new Error(`${load.failures} jobs failed in the throughput run: ${load.firstFailures.join('; ')}`);
        const delay = await probe.read(service);
        const after = { service: await cpuSeconds(service.pid as number), io: await processIo(service.pid as number) };
        const round = {
          jobs: load.jobs,
          seconds: load.seconds,
          cpuMicros: {
            service: (after.service.own - before.service.own) * 1e6,
            workers: (after.service.children - before.service.children) * 1e6,
            client: load.cpuMicros,
          },
        };
        if (measured) {
          rounds.push(round);
          delays.push(delay);
          written.syscw += after.io.syscw - before.io.syscw;
          written.wchar += after.io.wchar - before.io.wchar;
        }
        return round;
      },
      async finish() {
        await generator.close();
        const run = summedRounds(rounds);
        const figures = figuresFrom(latencies, { ...run, peakRssMb: await peakRssMb(service.pid as number) });
        const trivialGet = await benchTrivialGet(url, key, JSON.stringify((await call('GET', '/v2/organization')).body));
        let floodDelay: LoopDelay | undefined;
        const fairness = await benchFairness(call, { url, key, replicas: HEADLINE_REPLICAS }, options.backlog, options.floodSeconds, {
          start: async () => void (await probe.read(service)),
          end: async () => void (floodDelay = await probe.read(service)),
        });
        // The independent generator, on the same service and function, before the shapes take its replicas.
        const wrk = hasWrk() ? await wrkLoad(url, key, headlineBody(), options.inFlight, WRK_SECONDS) : null;
        const shapes = await benchShapes(
          { url, key, call, workDir: dataDir },
          { replicas: HEADLINE_REPLICAS, inFlight: options.inFlight, jobs: options.perRound, warmup: options.warmup },
          async () => {
            const { own } = await cpuSeconds(service.pid as number);
            return own;
          },
        );
        const streamLatency = await benchStreamLatency({ url, key, call, workDir: dataDir }, STREAM_JOBS);
        return {
          figures,
          extras: {
            wrk,
            streamLatency,
            shapes,
            writesPerJob: written.syscw / run.jobs,
            kbWrittenPerJob: written.wchar / 1024 / run.jobs,
            trivialGet,
            fairness,
            loopDelay: { throughput: worstOf(delays), flood: floodDelay as LoopDelay },
          },
        };
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Each figure at its worst over the rounds. */
function worstOf(delays: LoopDelay[]): LoopDelay {
  const worst = (key: keyof LoopDelay) => Math.max(...delays.map((delay) => delay[key]));
  return { p50: worst('p50'), p99: worst('p99'), p999: worst('p999'), max: worst('max') };
}

/** Write syscalls and bytes written so far by a process (its sockets and pipes included), from /proc. */
async function processIo(pid: number): Promise<{ syscw: number; wchar: number }> {
  const { readFile } = await import('node:fs/promises');
  const text = await readFile(`/proc/${pid}/io`, 'utf8').catch(() => '');
  const field = (name: string) => Number(new RegExp(`${name}: (\\d+)`).exec(text)?.[1] ?? Number.NaN);
  return { syscw: field('syscw'), wchar: field('wchar') };
}
