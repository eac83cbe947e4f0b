import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTimestamp } from '../shared/domain/time.js';
import type { WireJob } from '../shared/domain/wire/job.js';
import type { WireVersion } from '../shared/domain/wire/version.js';
import { inspectFunctions } from '../shared/packaging/inspectFunctions.js';
import { packDirectory } from '../shared/packaging/packDirectory.js';
import { benchFairness, type Fairness } from './fairness.js';
import { createJsonClient } from './httpClient.js';
import { runLoadGenerator } from './loadGenerator.js';
import { loopDelayProbe, type LoopDelay } from './loopDelay.js';
import { startServiceProcess } from './serviceProcess.js';
import type { Figures } from './stats.js';
import { benchTrivialGet } from './trivialGet.js';
import { cpuSeconds, figuresFrom, peakRssMb, wallMs } from './stats.js';

/** The no-op function's warm replicas, as many as BullMQ's worker runs at once. */
const NOOP_REPLICAS = 2;
const NOOP = `import sluice

@sluice.function(name="noop", minimum_replicas=${NOOP_REPLICAS}, maximum_replicas=${NOOP_REPLICAS})
def noop() -> None:
    pass
`;

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
  /** Write syscalls and bytes written by the service per job in the throughput run (/proc/PID/io). */
  writesPerJob: number;
  kbWrittenPerJob: number;
  trivialGet: { sluice: number; plain: number };
  fairness: Fairness;
  /** The service's event-loop delay during the throughput run and during the flood. */
  loopDelay: { throughput: LoopDelay; flood: LoopDelay };
}

/** The embedded service as its own process, a no-op Python function with two warm replicas. */
export async function benchSluice(options: { sequential: number; warmup: number; total: number; inFlight: number; backlog: number; floodSeconds: number }): Promise<{ figures: Figures; extras: SluiceExtras }> {
  const profile = process.env.BENCH_CPU_PROFILE ? [`--cpu-prof`, `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`] : [];
  const probe = loopDelayProbe(join(await mkdtemp(join(tmpdir(), 'sluice-bench-loop-')), 'loop-delay.json'));
  const { url, key, dataDir, child: service, stop } = await startServiceProcess([...profile, ...probe.nodeArgs], { ...probe.env, SLUICE_MAX_QUEUED_PER_VERSION: String(options.backlog) });
  try {
    const call = createJsonClient(url, key, options.inFlight);
    const functionDir = join(dataDir, 'noop-function');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(functionDir);
    await writeFile(join(functionDir, 'main.py'), NOOP);
    const inspected = await inspectFunctions(functionDir, 'python3');
    if (!inspected.ok) throw new Error(inspected.errors.join('; '));
    await call('POST', '/v2/functions/local/noop/versions', { metadata: inspected.functions[0], bundle: (await packDirectory(functionDir)).toString('base64') });
    for (;;) {
      const version = (await call<WireVersion>('GET', '/v2/functions/local/noop/versions/latest')).body;
      if (version.build_status === 'error') throw new Error('the no-op function failed to build');
      if (version.current_workers?.idle === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const samples: { sent: number; acknowledged: number; received: number; created: number; started: number; completed: number }[] = [];
    for (let i = 0; i < options.sequential; i++) {
      const sent = wallMs();
      const pushed = (await call<{ id: string }>('POST', '/v2/push', { function: 'local/noop', inputs: {} })).body;
      const acknowledged = wallMs();
      const job = (await call<WireJob>('GET', `/v2/jobs/${pushed.id}/await`)).body;
      const received = wallMs();
      samples.push({ sent, acknowledged, received, created: epochMs(job.created_at as string), started: epochMs(job.started_at as string), completed: epochMs(job.completed_at as string) });
    }
    // The service's clock against ours: each created_at was stamped between our send and its
    // acknowledgement, so the offset lies in [created - acknowledged, created - sent] for every
    // job; the intersection of those windows pins it down.
    const low = Math.max(...samples.map((s) => s.created - s.acknowledged));
    const high = Math.min(...samples.map((s) => s.created - s.sent));
    const offset = (low + high) / 2;
    const pushToStart = samples.map((s) => s.started - offset - s.sent);
    const pushToResult = samples.map((s) => s.received - s.sent);
    const awaitWake = samples.map((s) => s.received - (s.completed - offset));
    // The throughput run's load comes from its own lean process, so the client's CPU weighs on
    // the figure as little as it can; the service's costs are read just around it.
    let before = { service: { own: 0, children: 0 }, io: { syscw: 0, wchar: 0 } };
    const load = await runLoadGenerator<JobLoad>('./jobLoad.ts', [url, key, String(options.inFlight), String(options.total), String(options.warmup)], async () => {
      before = { service: await cpuSeconds(service.pid as number), io: await processIo(service.pid as number) };
      await probe.read(service);
    });
    if (load.failures > 0) throw new Error(`${load.failures} of ${load.jobs} jobs failed in the throughput run: ${load.firstFailures.join('; ')}`);
    const throughputDelay = await probe.read(service);
    const cpu = await cpuPerJob(before.service, service.pid as number, load);
    const io = await processIo(service.pid as number);
    const figures = figuresFrom({ pushToStart, pushToResult, awaitWake }, { jobs: load.jobs, seconds: load.seconds, peakRssMb: await peakRssMb(service.pid as number), cpuPerJob: cpu });
    const trivialGet = await benchTrivialGet(url, key, JSON.stringify((await call('GET', '/v2/organization')).body));
    let floodDelay: LoopDelay | undefined;
    const fairness = await benchFairness(call, { url, key, replicas: NOOP_REPLICAS }, options.backlog, options.floodSeconds, {
      start: async () => void (await probe.read(service)),
      end: async () => void (floodDelay = await probe.read(service)),
    });
    return {
      figures,
      extras: {
        writesPerJob: (io.syscw - before.io.syscw) / load.jobs,
        kbWrittenPerJob: (io.wchar - before.io.wchar) / 1024 / load.jobs,
        trivialGet,
        fairness,
        loopDelay: { throughput: throughputDelay, flood: floodDelay as LoopDelay },
      },
    };
  } finally {
    await stop();
  }
}

/** CPU microseconds per job of the throughput run: the service, its replicas, and the load generator (from its report). */
async function cpuPerJob(before: { own: number; children: number }, pid: number, load: JobLoad) {
  const after = await cpuSeconds(pid);
  const micros = (seconds: number) => (seconds * 1e6) / load.jobs;
  return {
    service: micros(after.own - before.own),
    workers: micros(after.children - before.children),
    client: load.cpuMicros / load.jobs,
  };
}

/** Write syscalls and bytes written so far by a process (its sockets and pipes included), from /proc. */
async function processIo(pid: number): Promise<{ syscw: number; wchar: number }> {
  const { readFile } = await import('node:fs/promises');
  const text = await readFile(`/proc/${pid}/io`, 'utf8').catch(() => '');
  const field = (name: string) => Number(new RegExp(`${name}: (\\d+)`).exec(text)?.[1] ?? Number.NaN);
  return { syscw: field('syscw'), wchar: field('wchar') };
}
