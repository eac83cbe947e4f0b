import { spawn } from 'node:child_process';
import { readLines } from './lineReader.js';
import { killProcessGroup } from './processGroup.js';

export interface CommandResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the command could not start at all (not found, not executable). */
  spawnError: string | null;
  timedOut: boolean;
}

export interface RunCommandOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Each line the command prints, on stdout or stderr, as it comes. */
  onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
}

/**
 * Runs a command to completion, streaming its output line by line. Never rejects. The command
 * leads its own process group, and the whole group is killed when it ends or times out, so
 * nothing it started (a build backend left running, say) outlives it.
 */
export function runCommand(command: string, args: string[], options: RunCommandOptions = {}): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let timedOut = false;
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            killProcessGroup(child);
          }, options.timeoutMs);
    for (const stream of ['stdout', 'stderr'] as const) {
      readLines(child[stream], (line) => options.onLine?.(line, stream));
    }
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ exitCode: null, signal: null, spawnError: error.message, timedOut: false });
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      killProcessGroup(child);
      resolve({ exitCode, signal, spawnError: null, timedOut });
    });
  });
}
