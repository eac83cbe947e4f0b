import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pipConfiguration } from '../shared/adapters/local/build/pipConfiguration.js';

export interface BenchService {
  url: string;
  /** The bootstrap key of organization `local`. */
  key: string;
  process: ChildProcessWithoutNullStreams;
  /** SIGTERM, and wait for the exit. */
  stop(): Promise<void>;
}

/** `sluice start` as its own process on a free port over `dataDir`, once it is listening. */
export async function startBenchService(dataDir: string, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<BenchService> {
  // It logs as `npm start` does (info, one line per job: its cost is part of the figures), into a
  // file, not the bench's output; BENCH_LOG_LEVEL=warn measures without it.
  const logPath = join(dataDir, 'service.log');
  const log = openSync(logPath, 'a');
  const child = spawn(process.execPath, [...nodeArgs, fileURLToPath(new URL('../bin/sluice.js', import.meta.url)), 'start'], {
    // Its own user config: `sluice start` remembers its service there, and a bench's temporary
    // one must not become the CLI's (`sluice keys` then pointed at a folder long deleted). The
    // user's pip configuration is named outright, since pip would look for it there too (the
    // workloads' builds then found no package index).
    env: {
      ...process.env,
      ...pipConfiguration(process.env).env,
      PORT: '0',
      SLUICE_DATA_DIR: dataDir,
      SLUICE_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      XDG_CONFIG_HOME: join(dataDir, 'config'),
      ...env,
    },
    stdio: ['ignore', 'pipe', log],
  }) as unknown as ChildProcessWithoutNullStreams;
  closeSync(log); // the child holds its own
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  try {
    const { url, key } = await new Promise<{ url: string; key: string }>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const url = /running at (http:\/\/\S+)/.exec(out)?.[1];
        const key = /API key for organization "local"(?: \(new\))?: (\S+)/.exec(out)?.[1];
        if (url && key) resolve({ url, key });
      });
      child.on('exit', (code) => reject(new Error(`sluice start exited with ${code}: ${out}${readFileSync(logPath, 'utf8').slice(-2000)}`)));
    });
    return { url, key, process: child, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

export interface ServiceProcess {
  url: string;
  key: string;
  dataDir: string;
  child: ChildProcessWithoutNullStreams;
  /** SIGTERM, wait for the exit, remove the data directory. */
  stop(): Promise<void>;
}

/** The same over a fresh data directory, removed when it stops. */
export async function startServiceProcess(nodeArgs: string[] = [], env: Record<string, string> = {}): Promise<ServiceProcess> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sluice-bench-'));
  try {
    const service = await startBenchService(dataDir, env, nodeArgs);
    return {
      url: service.url,
      key: service.key,
      dataDir,
      child: service.process,
      async stop() {
        await service.stop();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}
