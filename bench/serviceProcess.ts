import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ServiceProcess {
  url: string;
  key: string;
  dataDir: string;
  child: ChildProcess;
  /** SIGTERM, wait for the exit, remove the data directory. */
  stop(): Promise<void>;
}

/** `sluice start` as its own process over a fresh data directory, once it prints its URL and key. */
export async function startServiceProcess(nodeArgs: string[] = [], env: Record<string, string> = {}): Promise<ServiceProcess> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sluice-bench-'));
  const child = spawn(process.execPath, [...nodeArgs, fileURLToPath(new URL('../bin/sluice.js', import.meta.url)), 'start'], {
    env: { ...process.env, ...env, PORT: '0', SLUICE_DATA_DIR: dataDir, SLUICE_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    await rm(dataDir, { recursive: true, force: true });
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
      child.on('exit', (code) => reject(new Error(`sluice start exited with ${code}: ${out}`)));
    });
    return { url, key, dataDir, child, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
