import { execFile, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SLUICE_BIN = fileURLToPath(new URL('../../../bin/sluice.js', import.meta.url));

/**
 * The user config folder every test's `sluice` gets unless it names its own: a developer's own
 * `sluice login` never leaks into a test, and a test's `sluice start` never writes there.
 */
export const TEST_CONFIG_HOME = mkdtempSync(join(tmpdir(), 'sluice-config-'));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `sluice` command as a user would. */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [SLUICE_BIN, ...args],
      { env: { ...process.env, XDG_CONFIG_HOME: TEST_CONFIG_HOME, ...env }, timeout: timeoutMs },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

export interface CliRun {
  /** The environment, replacing the test process's own (PATH and the like are kept). */
  env: Record<string, string | undefined>;
  cwd?: string;
  /** Written to its stdin, which then closes. */
  input?: string;
  timeoutMs?: number;
}

/** Runs `sluice` in a folder of the test's choosing, with only the environment it names (no SLUICE_* of the test's own). */
export function runCliIn(args: string[], run: CliRun): Promise<CliResult> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SLUICE_')));
  const child = spawn(process.execPath, [SLUICE_BIN, ...args], { cwd: run.cwd, env: { ...inherited, ...run.env } as NodeJS.ProcessEnv });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(run.input ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), run.timeoutMs ?? 120_000);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}
