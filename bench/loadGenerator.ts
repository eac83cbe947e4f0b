// How the bench runs a load generator (httpLoad.ts, jobLoad.ts) as its own process: the child
// says `ready` once loaded and runs once on each `go` line, so what the parent measures around a
// run (the service's CPU, writes, event-loop delay) leaves out the child's start-up; each run
// ends with one JSON line, its report, and the child exits at the end of its input.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const READY = 'ready';

/** A generator process, ready: each run is told to go and answers its report. */
export interface LoadGenerator<Report> {
  /** One run; `beforeStart` runs just before it starts. */
  run(beforeStart?: () => Promise<void>): Promise<Report>;
  /** Ends its input, and waits for it to exit. */
  close(): Promise<void>;
}

/** Starts `script` (a file beside this one) with `args`, once it is ready. */
export async function startLoadGenerator<Report>(script: string, args: string[]): Promise<LoadGenerator<Report>> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(script, import.meta.url)), ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = once(child, 'exit') as Promise<[number | null]>;
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const nextLine = async (what: string): Promise<string> => {
    const next = await Promise.race([lines.next(), exited.then(([code]) => ({ done: true as const, value: `exited with ${code}` }))]);
    if (next.done) throw new Error(`${script} ended before ${what}`);
    return next.value;
  };
  if ((await nextLine('it was ready')) !== READY) throw new Error(`${script} did not say ${READY}`);
  return {
    async run(beforeStart = async () => {}) {
      await beforeStart();
      child.stdin.write('go\n');
      return JSON.parse(await nextLine('its report')) as Report;
    },
    async close() {
      child.stdin.end();
      const [code] = await exited;
      if (code !== 0) throw new Error(`${script} exited with ${code}`);
    },
  };
}

/** Runs `script` once: started, one run (`beforeStart` just before it starts), closed. Its report. */
export async function runLoadGenerator<Report>(script: string, args: string[], beforeStart: () => Promise<void> = async () => {}): Promise<Report> {
  const generator = await startLoadGenerator<Report>(script, args);
  const report = await generator.run(beforeStart);
  await generator.close();
  return report;
}

/** The `go` lines of the generator's input: read from its first awaitGo (never in the parent). */
let goes: AsyncIterator<string> | undefined;

/** The generator's side: says it is ready (the first time), then waits for a `go` line; false at the end of its input. */
export async function awaitGo(): Promise<boolean> {
  if (!goes) {
    goes = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
    process.stdout.write(`${READY}\n`);
  }
  return !(await goes.next()).done;
}

/**
 * A timed generator's run (httpLoad.ts, pushFlood.ts): once told to go, `connections` drivers at
 * once, each asking `running()` before its next request, which says no once `seconds` are up.
 * Resolves, when every driver has ended, with the seconds they took.
 */
export async function driveFor(connections: number, seconds: number, drive: (running: () => boolean) => Promise<void>): Promise<number> {
  await awaitGo();
  let running = true;
  const started = performance.now();
  setTimeout(() => (running = false), seconds * 1000);
  await Promise.all(Array.from({ length: connections }, () => drive(() => running)));
  return (performance.now() - started) / 1000;
}
