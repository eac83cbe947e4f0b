import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCommand } from '../process/runCommand.js';
import { BuildFailure } from './buildFailure.js';
import type { PythonInterpreter } from './pythonInterpreters.js';

export type OutputLine = (line: string) => void;

/**
 * Virtual environments, one per (interpreter, package list), under <data dir>/envs.
 * Versions that declare the same Python and packages share one, so a redeploy of the same
 * dependencies builds in an instant. An environment is made in a scratch folder and renamed
 * into place when complete, so a crash never leaves a half-made one that looks ready.
 */
export class PythonEnvironments {
  private readonly inProgress = new Map<string, Promise<string>>();

  constructor(
    private readonly folder: string,
    private readonly pipArgs: string[],
  ) {}

  /** The environment's folder, made if needed. */
  ensure(interpreter: PythonInterpreter, packages: string[], output: OutputLine): Promise<string> {
    const key = environmentKey(interpreter, packages);
    const path = join(this.folder, key);
    if (existsSync(join(path, '.ready'))) {
      output(`Reusing the environment ${key} (Python ${interpreter.version}${packages.length ? `, ${packages.join(' ')}` : ''}).`);
      return Promise.resolve(path);
    }
    const running = this.inProgress.get(key);
    if (running) return running;
    const making = this.make(interpreter, packages, path, output).finally(() => this.inProgress.delete(key));
    this.inProgress.set(key, making);
    return making;
  }

  private async make(interpreter: PythonInterpreter, packages: string[], path: string, output: OutputLine): Promise<string> {
    const scratch = `${path}.partial-${process.pid}`;
    await rm(scratch, { recursive: true, force: true });
    await mkdir(this.folder, { recursive: true });
    output(`Creating a Python ${interpreter.version} environment.`);
    try {
      const venvArgs = ['-m', 'venv', ...(packages.length === 0 ? ['--without-pip'] : []), scratch];
      await this.step(interpreter.executable, venvArgs, output, 'Creating the virtual environment failed');
      if (packages.length > 0) {
        output(`Installing ${packages.join(' ')}`);
        const pip = ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', ...this.pipArgs, ...packages];
        await this.step(join(scratch, 'bin', 'python'), pip, output, 'pip install failed');
      }
      await writeFile(join(scratch, '.ready'), `${interpreter.executable}\n${packages.join('\n')}\n`);
      await rm(path, { recursive: true, force: true });
      await rename(scratch, path);
      return path;
    } finally {
      // A failed install leaves no half-made environment behind (after the rename, nothing is left to remove).
      await rm(scratch, { recursive: true, force: true });
    }
  }

  private async step(command: string, args: string[], output: OutputLine, failure: string): Promise<void> {
    const result = await runCommand(command, args, { onLine: output, timeoutMs: 30 * 60_000 });
    if (result.exitCode === 0) return;
    const why = result.spawnError ?? (result.timedOut ? 'timed out' : `exit status ${result.exitCode ?? result.signal}`);
    throw new BuildFailure(`${failure} (${why}); see the build logs.`);
  }
}

function environmentKey(interpreter: PythonInterpreter, packages: string[]): string {
  const identity = [interpreter.executable, ...[...packages].sort()].join('\n');
  return createHash('sha256').update(identity).digest('hex').slice(0, 16);
}
