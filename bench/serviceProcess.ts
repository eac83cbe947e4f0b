import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface BenchService {
  url: string;
  /** The bootstrap key of organization `local`. */
  key: string;
  process: ChildProcessWithoutNullStreams;
  stop(): Promise<void>;
}

/** `sluice start` as its own process on a free port over `dataDir`, once it is listening. */
export async function startBenchService(dataDir: string, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<BenchService> {
  const child = spawn(process.execPath, [...nodeArgs, fileURLToPath(new URL('../bin/sluice.js', import.meta.url)), 'start'], {
    env: { ...process.env, PORT: '0', SLUICE_DATA_DIR: dataDir, SLUICE_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  }) as unknown as ChildProcessWithoutNullStreams;
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
  return {
    url,
    key,
    process: child,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
