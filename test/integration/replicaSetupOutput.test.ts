import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Replica } from '../../shared/runtime/replica.js';

/**
 * A stand-in runtime that says `ready` before its setup's last line reaches its stdout: the
 * order the agent may read them in when both arrive together. `marks` says whether it ends
 * setup's output with the marker the agent gave it, as sluice._runtime does.
 */
const runtime = (marks: boolean) => `
import os, socket, sys, time
channel = socket.socket(fileno=3)
channel.sendall(b'{"type":"hello","pid":1}\\n{"type":"ready"}\\n')
time.sleep(0.3)
marker = os.environ.get("SLUICE_SETUP_END_MARKER", "")
sys.stdout.write("setup's last line\\n")
if ${marks ? 'True' : 'False'}:
    sys.stdout.write(marker + "\\n")
    sys.stderr.write(marker + "\\n")
sys.stdout.flush()
sys.stderr.flush()
time.sleep(30)
`;

describe('a replica is ready once its setup output is read', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sluice-setup-output-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function start(marks: boolean) {
    const script = join(dir, `runtime-${marks}.py`);
    await writeFile(script, runtime(marks));
    const lines: string[] = [];
    const replica = new Replica({
      id: 'r1',
      command: 'python3',
      args: [script],
      cwd: dir,
      env: { PATH: process.env.PATH },
      onLine: (line) => lines.push(line),
      onExit: () => undefined,
    });
    const started = performance.now();
    await replica.ready;
    return { replica, linesWhenReady: [...lines], waitedMs: performance.now() - started };
  }

  it("setup's last line is read before the replica takes a job, even when `ready` came first", async () => {
    const { replica, linesWhenReady } = await start(true);
    try {
      expect(linesWhenReady).toEqual(["setup's last line"]);
      expect(replica.state).toBe('idle');
    } finally {
      replica.kill();
    }
  });

  it('a runtime that writes no setup marker is ready all the same, after the drain wait', async () => {
    const { replica, linesWhenReady, waitedMs } = await start(false);
    try {
      expect(linesWhenReady).toEqual(["setup's last line"]);
      expect(waitedMs).toBeGreaterThan(1_500);
    } finally {
      replica.kill();
    }
  });
});
