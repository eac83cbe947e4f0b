import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Replica } from '../../shared/runtime/replica.js';
import { runtimeCommand } from '../../shared/runtime/runtimeCommand.js';
import { aVersion } from '../support/fixtures.js';
import { python, pythonDir } from '../support/replicaHarness.js';

const SOURCE = `import sys
import time
import sluice

@sluice.function(name="printer")
def printer(lines: int, unended: str, linger: float) -> None:
    for i in range(lines):
        print(f"line {i}")
    print("to stderr", file=sys.stderr)
    sys.stdout.write(unended)
    sys.stdout.flush()
    time.sleep(linger)  # time for the agent to read it all before the job ends
`;

/**
 * A job's log is what it printed, to the last line, whether the agent had read all of it when the
 * job ended (the replica then prints no end marker) or not (it does, and the agent reads up to it).
 */
describe("a job's output through a real replica, with or without its end marker", () => {
  let dir: string;
  let replica: Replica;
  const lines: string[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sluice-job-output-'));
    await writeFile(join(dir, 'main.py'), SOURCE);
    const version = aVersion({ entrypoint: { file: 'main.py', symbol: 'printer', kind: 'function', generator: false } });
    const command = runtimeCommand({ python, sdkDir: pythonDir, codeDir: dir, version, env: { PATH: process.env.PATH ?? '' } });
    replica = new Replica({ id: 'r1', ...command, onLine: (line) => lines.push(line), onExit: () => undefined });
    await replica.ready;
  });
  afterAll(async () => {
    replica.kill();
    await rm(dir, { recursive: true, force: true });
  });

  const run = async (inputs: { lines: number; unended: string; linger: number }) => {
    lines.length = 0;
    const outcome = await replica.runJob(
      { jobId: `job-${inputs.lines}`, runId: 'run', inputs, env: {}, maxOutputBytes: 1_000_000 },
      { onOutput: () => undefined, onCall: () => Promise.reject(new Error('no calls')) },
    );
    return { outcome, lines: [...lines] };
  };
  const printed = (count: number, unended: string) => [...Array.from({ length: count }, (_, i) => `line ${i}`), 'to stderr', unended].sort();

  it('ends a job whose output the agent had read at its done: every line its own, the unended last one too', async () => {
    const { outcome, lines: seen } = await run({ lines: 3, unended: 'no newline', linger: 0.2 });
    expect(outcome).toEqual({ kind: 'done' });
    expect(seen.sort()).toEqual(printed(3, 'no newline'));
  });

  it('ends a job whose output the agent had read but held back (its log writer behind) once it has given those lines', async () => {
    replica.pauseOutput(true); // read into the stream's buffer, not yet given as lines
    const started = performance.now();
    const running = run({ lines: 100, unended: 'held back', linger: 0.2 });
    setTimeout(() => replica.pauseOutput(false), 400);
    const { outcome, lines: seen } = await running;
    expect(outcome).toEqual({ kind: 'done' });
    expect(seen.sort()).toEqual(printed(100, 'held back'));
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("ends a job whose output was all given before its stream was paused once the stream resumes: its unended line its own, never the next job's", async () => {
    const started = performance.now();
    const running = run({ lines: 50, unended: 'paused tail', linger: 0.3 });
    setTimeout(() => replica.pauseOutput(true), 150); // the lines were read and given by then
    setTimeout(() => replica.pauseOutput(false), 600);
    const { outcome, lines: seen } = await running;
    expect(outcome).toEqual({ kind: 'done' });
    expect(seen.sort()).toEqual(printed(50, 'paused tail'));
    expect(performance.now() - started).toBeLessThan(2_000);
    const next = await run({ lines: 1, unended: 'next', linger: 0 });
    expect(next.lines.sort()).toEqual(printed(1, 'next'));
  });

  it('keeps a job\'s line ended by a lone "\\r" from taking the next job\'s leading line break', async () => {
    const first = await run({ lines: 0, unended: 'progress 100%\r', linger: 0.2 });
    expect(first.lines.sort()).toEqual(['progress 100%', 'to stderr']);
    const second = await run({ lines: 0, unended: '\nafter an empty line', linger: 0.2 });
    expect(second.lines.sort()).toEqual(['', 'after an empty line', 'to stderr']);
  });

  it('reads a job whose output the agent had not read to its end marker: every line its own, and nothing of the next job', async () => {
    replica.pauseOutput(true); // the log writer is behind: nothing is read while the job prints
    const started = performance.now();
    const running = run({ lines: 2000, unended: 'last', linger: 0 });
    setTimeout(() => replica.pauseOutput(false), 300);
    const { outcome, lines: seen } = await running;
    expect(outcome).toEqual({ kind: 'done' });
    // Ended by its marker once read, not by the 2 s wait for output that no marker closes.
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(seen.sort()).toEqual(printed(2000, 'last'));
    const next = await run({ lines: 1, unended: 'next', linger: 0 });
    expect(next.lines.sort()).toEqual(printed(1, 'next'));
  });
});
