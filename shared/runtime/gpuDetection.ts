import { runCommand } from '../system/runCommand.js';
import type { Gpu } from './gpuInventory.js';
import { parseNvidiaSmi } from './gpuInventory.js';

/** This machine's NVIDIA GPUs, from nvidia-smi; none when it is absent or fails. */
export async function detectGpus(): Promise<Gpu[]> {
  let output = '';
  const result = await runCommand('nvidia-smi', ['--query-gpu=index,name', '--format=csv,noheader'], {
    timeoutMs: 10_000,
    onLine: (line, stream) => stream === 'stdout' && (output += `${line}\n`),
  });
  return result.exitCode === 0 ? parseNvidiaSmi(output) : [];
}
