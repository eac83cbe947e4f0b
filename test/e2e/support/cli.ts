import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const SLUICE_BIN = fileURLToPath(new URL('../../../bin/sluice.js', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `sluice` command as a user would. */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SLUICE_BIN, ...args], { env: { ...process.env, ...env }, timeout: timeoutMs }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
