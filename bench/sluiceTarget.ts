import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTimestamp } from '../shared/domain/time.js';
import type { WireJob } from '../shared/domain/wire/job.js';
import type { WireVersion } from '../shared/domain/wire/version.js';
import { inspectFunctions } from '../shared/packaging/inspectFunctions.js';
import { packDirectory } from '../shared/packaging/packDirectory.js';
import { createJsonClient } from './httpClient.js';
import { startBenchService } from './serviceProcess.js';
import type { Figures } from './stats.js';
import { cpuSeconds, figuresFrom, peakRssMb, runConcurrently, wallMs } from './stats.js';

const NOOP = `import sluice

@sluice.function(name="noop", minimum_replicas=2, maximum_replicas=2)
def noop() -> None:
    pass
`;

/** A wire timestamp to epoch milliseconds, keeping its microseconds. */
const epochMs = (timestamp: string) => parseTimestamp(timestamp) / 1000;

/** The embedded service as its own process, a no-op Python function with two warm replicas. */
export async function benchSluice(options: { sequential: number; total: number; inFlight: number }): Promise<Figures> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sluice-bench-'));
  const profile = process.env.BENCH_CPU_PROFILE ? [`--cpu-prof`, `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`] : [];
  const running = await startBenchService(dataDir, {}, profile);
  const { url, key, process: service } = running;
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
    const before = { service: await cpuSeconds(service.pid as number), client: process.cpuUsage() };
    const seconds = await runConcurrently(options.total, options.inFlight, async () => {
      const pushed = (await call<{ id: string }>('POST', '/v2/push', { function: 'local/noop', inputs: {} })).body;
      const done = await call<WireJob>('GET', `/v2/jobs/${pushed.id}/await`);
      if (done.body.status !== 'finished') throw new Error(`job ${pushed.id} ended ${done.body.status}`);
    });
    return figuresFrom(
      { pushToStart, pushToResult, awaitWake },
      { jobs: options.total, seconds, peakRssMb: await peakRssMb(service.pid as number), cpuPerJob: await cpuPerJob(before, service.pid as number, options.total) },
    );
  } finally {
    await running.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function cpuPerJob(before: { service: { own: number; children: number }; client: NodeJS.CpuUsage }, pid: number, jobs: number) {
  const after = await cpuSeconds(pid);
  const client = process.cpuUsage(before.client);
  const micros = (seconds: number) => (seconds * 1e6) / jobs;
  return {
    service: micros(after.own - before.service.own),
    workers: micros(after.children - before.service.children),
    client: (client.user + client.system) / jobs,
  };
}
