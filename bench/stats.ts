/** Percentile of a sample (nearest rank). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across processes on this machine. */
export const wallMs = () => performance.timeOrigin + performance.now();

/** Peak resident memory (VmHWM) of a process, in MB, from /proc; NaN where /proc is absent. */
export async function peakRssMb(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
  return kb === undefined ? Number.NaN : Number(kb) / 1024;
}

/** Runs `total` tasks with at most `inFlight` at once; returns elapsed seconds. */
export async function runConcurrently(total: number, inFlight: number, task: (index: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = wallMs();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < total) await task(next++);
    }),
  );
  return (wallMs() - started) / 1000;
}

export interface Figures {
  pushToStartP50: number;
  pushToStartP99: number;
  pushToResultP50: number;
  pushToResultP99: number;
  awaitWakeP50: number;
  awaitWakeP99: number;
  throughput: number;
  peakRssMb: number;
  /** CPU microseconds per job during the throughput run: the service (or Redis), its workers, the client. */
  cpuPerJob: { service: number; workers: number; client: number };
}

/**
 * CPU seconds (user + system) a process has used, and its live descendants: replicas run under a
 * sandbox (bwrap), so the Python process is a grandchild, not a child, of the service.
 */
export async function cpuSeconds(pid: number): Promise<{ own: number; children: number }> {
  const { readFile } = await import('node:fs/promises');
  const ticks = async (id: number) => {
    const stat = await readFile(`/proc/${id}/stat`, 'utf8').catch(() => '');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  };
  const childrenOf = async (id: number) =>
    (await readFile(`/proc/${id}/task/${id}/children`, 'utf8').catch(() => '')).trim().split(/\s+/).filter(Boolean).map(Number);
  let children = 0;
  for (let pending = await childrenOf(pid); pending.length > 0;) {
    const id = pending.pop() as number;
    children += await ticks(id);
    pending.push(...(await childrenOf(id)));
  }
  return { own: await ticks(pid), children };
}

/** One throughput round of a side: its jobs, its seconds, and the CPU microseconds (in all) of its server (the service or Redis), its workers (replicas or BullMQ's worker) and its client. */
export interface Round {
  jobs: number;
  seconds: number;
  cpuMicros: Figures['cpuPerJob'];
}

/** A side's rounds as one run: all their jobs over all their seconds, CPU per job. */
export function summedRounds(rounds: Round[]): { jobs: number; seconds: number; cpuPerJob: Figures['cpuPerJob'] } {
  const sum = (pick: (round: Round) => number) => rounds.reduce((total, round) => total + pick(round), 0);
  const jobs = sum((round) => round.jobs);
  return {
    jobs,
    seconds: sum((round) => round.seconds),
    cpuPerJob: {
      service: sum((round) => round.cpuMicros.service) / jobs,
      workers: sum((round) => round.cpuMicros.workers) / jobs,
      client: sum((round) => round.cpuMicros.client) / jobs,
    },
  };
}

/** The figures of one target from its raw samples (milliseconds) and its throughput rounds. */
export function figuresFrom(
  samples: { pushToStart: number[]; pushToResult: number[]; awaitWake: number[] },
  run: { jobs: number; seconds: number; peakRssMb: number; cpuPerJob: Figures['cpuPerJob'] },
): Figures {
  return {
    pushToStartP50: percentile(samples.pushToStart, 50),
    pushToStartP99: percentile(samples.pushToStart, 99),
    pushToResultP50: percentile(samples.pushToResult, 50),
    pushToResultP99: percentile(samples.pushToResult, 99),
    awaitWakeP50: percentile(samples.awaitWake, 50),
    awaitWakeP99: percentile(samples.awaitWake, 99),
    throughput: run.jobs / run.seconds,
    peakRssMb: run.peakRssMb,
    cpuPerJob: run.cpuPerJob,
  };
}
