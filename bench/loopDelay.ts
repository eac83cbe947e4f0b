import type { ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** The event-loop delay of the service since the last reading, in milliseconds (loopDelayProbe.mjs). */
export interface LoopDelay {
  p50: number;
  p99: number;
  p999: number;
  max: number;
}

/** Node arguments that load the probe into the service, and a reader of its histogram (which starts it anew). */
export function loopDelayProbe(file: string): { nodeArgs: string[]; env: Record<string, string>; read: (service: ChildProcess) => Promise<LoopDelay> } {
  return {
    nodeArgs: ['--import', fileURLToPath(new URL('./loopDelayProbe.mjs', import.meta.url))],
    env: { BENCH_LOOP_DELAY_FILE: file },
    async read(service) {
      await rm(file, { force: true });
      service.kill('SIGUSR2');
      for (let waited = 0; waited < 5000; waited += 20) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        try {
          return JSON.parse(await readFile(file, 'utf8')) as LoopDelay;
        } catch {
          // not written (whole) yet
        }
      }
      throw new Error('the service did not write its event-loop delay');
    },
  };
}
