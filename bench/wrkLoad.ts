// An independent load generator for the headline jobs: wrk, with bench/wrk/pushAwait.lua (pushes
// and awaits on different connections). Issue 33: it must agree with bench/jobLoad.ts within 15%.
import { execFile, execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export interface WrkLoad {
  jobsPerSecond: number;
  failures: number;
}

const SCRIPT = fileURLToPath(new URL('./wrk/pushAwait.lua', import.meta.url));

/** Whether wrk is installed (Debian: apt-get install wrk). */
export function hasWrk(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    // wrk --version prints its version and exits 1.
    return (error as { status?: number }).status === 1;
  }
}

/** One wrk run of `seconds` on `connections` connections (one thread, as the built-in generator is one process). */
export async function wrkLoad(url: string, key: string, body: unknown, connections: number, seconds: number): Promise<WrkLoad> {
  const { stdout } = await promisify(execFile)('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '-s', SCRIPT, url, '--', key, JSON.stringify(body)]);
  const last = stdout.trim().split('\n').at(-1) ?? '';
  const report = JSON.parse(last) as { jobs: number; failures: number; seconds: number };
  return { jobsPerSecond: report.jobs / report.seconds, failures: report.failures };
}
