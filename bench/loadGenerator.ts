// How the bench runs a load generator (httpLoad.ts, jobLoad.ts) as its own process: the child
// says `ready` once loaded and starts on `go`, so what the parent measures around the run (the
// service's CPU, writes, event-loop delay) leaves out the child's start-up; it ends by printing
// one JSON line, its report.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const READY = 'ready\n';

/** Runs `script` (a file beside this one) with `args`; `beforeStart` runs once it is ready, just before it starts. Its report. */
export async function runLoadGenerator<Report>(script: string, args: string[], beforeStart: () => Promise<void> = async () => {}): Promise<Report> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(script, import.meta.url)), ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = once(child, 'exit') as Promise<[number | null]>;
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.startsWith(READY)) resolve();
    });
    void exited.then(([code]) => reject(new Error(`${script} exited with ${code} before it was ready`)));
  });
  await beforeStart();
  child.stdin.end('go\n');
  const [code] = await exited;
  if (code !== 0) throw new Error(`${script} exited with ${code}`);
  return JSON.parse(out.slice(READY.length)) as Report;
}

/** The generator's side: says it is ready, and resolves when told to go. */
export async function awaitGo(): Promise<void> {
  process.stdout.write(READY);
  await once(process.stdin, 'data');
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
