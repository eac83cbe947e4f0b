import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inheritedEnvironment } from '../../../runtime/inheritedEnvironment.js';
import { runCommand } from '../process/runCommand.js';
import type { Sandbox, SandboxSpec } from '../sandbox/sandbox.js';
import { BuildFailure } from './buildFailure.js';
import { pipConfiguration } from './pipConfiguration.js';
import type { PythonInterpreter } from './pythonInterpreters.js';
import { pythonInstallation } from './pythonInterpreters.js';

export type OutputLine = (line: string) => void;

/** What an environment holds besides its interpreter: Python packages, then what the build commands made. */
export interface EnvironmentContents {
  packages: string[];
  /** Shell commands run in order after the packages are installed, in the environment (`run_commands`). */
  runCommands: string[];
}

export interface PythonEnvironmentsOptions {
  /** Where environments go: <folder>/<key>. */
  folder: string;
  /** Where each build's private scratch folder (its /tmp and home) goes. */
  scratchFolder: string;
  /** Extra arguments for `pip install` (SLUICE_PIP_ARGS). */
  pipArgs: string[];
  /** Confines venv and pip, and the packages' build code they run. */
  sandbox: Sandbox;
}

/**
 * Virtual environments, one per (interpreter, package list, run commands), under <data dir>/envs.
 * Versions that declare the same Python, packages and commands share one, so a redeploy of the
 * same dependencies builds in an instant. An environment is made in a scratch folder and renamed
 * into place when complete, so a crash never leaves a half-made one that looks ready.
 *
 * venv and pip run in the sandbox (a package's build runs its author's code): they see the
 * interpreter, pip's configuration and the environment being made, with the network for pip's
 * index, and the machine's setup of the service's variables plus PIP_*, nothing else of it.
 */
export class PythonEnvironments {
  private readonly inProgress = new Map<string, Promise<string>>();

  constructor(private readonly options: PythonEnvironmentsOptions) {}

  /** The environment's folder, made if needed. */
  ensure(interpreter: PythonInterpreter, contents: EnvironmentContents, output: OutputLine): Promise<string> {
    const key = environmentKey(interpreter, contents);
    const path = join(this.options.folder, key);
    if (existsSync(join(path, '.ready'))) {
      const { packages, runCommands } = contents;
      const commands = runCommands.length ? `, ${runCommands.length} build command${runCommands.length > 1 ? 's' : ''}` : '';
      output(`Reusing the environment ${key} (Python ${interpreter.version}${packages.length ? `, ${packages.join(' ')}` : ''}${commands}).`);
      return Promise.resolve(path);
    }
    const running = this.inProgress.get(key);
    if (running) return running;
    const making = this.make(interpreter, contents, path, output).finally(() => this.inProgress.delete(key));
    this.inProgress.set(key, making);
    return making;
  }

  private async make(interpreter: PythonInterpreter, { packages, runCommands }: EnvironmentContents, path: string, output: OutputLine): Promise<string> {
    const scratch = `${path}.partial-${process.pid}`;
    await rm(scratch, { recursive: true, force: true });
    await mkdir(scratch, { recursive: true });
    await mkdir(this.options.scratchFolder, { recursive: true });
    const work = await mkdtemp(join(this.options.scratchFolder, 'build-'));
    const pipConfig = pipConfiguration(process.env);
    const installation = pythonInstallation(interpreter.executable);
    const spec: SandboxSpec = { readOnly: [...(installation === null ? [] : [installation]), ...pipConfig.files], writable: [scratch], scratch: work, devices: [] };
    try {
      output(`Creating a Python ${interpreter.version} environment.`);
      const venvArgs = ['-m', 'venv', ...(packages.length === 0 ? ['--without-pip'] : []), scratch];
      await this.step(interpreter.executable, venvArgs, spec, pipConfig.env, output, 'Creating the virtual environment failed');
      if (packages.length > 0) {
        output(`Installing ${packages.join(' ')}`);
        const pip = ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', ...this.options.pipArgs, ...packages];
        await this.step(join(scratch, 'bin', 'python'), pip, spec, pipConfig.env, output, 'pip install failed');
      }
      // As a Dockerfile's RUN lines: each in a shell, in the environment, its output in the build log.
      const activated = { ...pipConfig.env, VIRTUAL_ENV: scratch, PATH: `${join(scratch, 'bin')}:${process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'}` };
      for (const [index, command] of runCommands.entries()) {
        output(`Running build command ${index + 1} of ${runCommands.length}: ${command}`);
        await this.step('/bin/sh', ['-c', command], { ...spec, cwd: scratch }, activated, output, `Build command ${index + 1} (${command}) failed`);
      }
      await relocateScripts(scratch, path);
      await writeFile(join(scratch, '.ready'), `${interpreter.executable}\n${[...packages, ...runCommands].join('\n')}\n`);
      await rm(path, { recursive: true, force: true });
      await rename(scratch, path);
      return path;
    } finally {
      await rm(work, { recursive: true, force: true });
      // A failed install leaves no half-made environment behind (after the rename, nothing is left to remove).
      await rm(scratch, { recursive: true, force: true });
    }
  }

  private async step(command: string, args: string[], spec: SandboxSpec, pipEnv: Record<string, string>, output: OutputLine, failure: string): Promise<void> {
    const confined = this.options.sandbox.wrap(command, args, spec);
    const inherited = inheritedEnvironment(process.env, /^PIP_/);
    const env = { ...inherited, PATH: inherited.PATH ?? '/usr/local/bin:/usr/bin:/bin', ...pipEnv, HOME: confined.scratch, TMPDIR: confined.scratch };
    const result = await runCommand(confined.command, confined.args, { cwd: confined.cwd, env, onLine: output, timeoutMs: 30 * 60_000 });
    if (result.exitCode === 0) return;
    const why = result.spawnError ?? (result.timedOut ? 'timed out' : `exit status ${result.exitCode ?? result.signal}`);
    throw new BuildFailure(`${failure} (${why}); see the build logs.`);
  }
}

/**
 * venv and pip write the environment's path into its scripts (console scripts' `#!` lines,
 * `activate`): made in the scratch folder, they must name the folder it is renamed to.
 */
async function relocateScripts(scratch: string, path: string): Promise<void> {
  const bin = join(scratch, 'bin');
  for (const name of await readdir(bin)) {
    const file = join(bin, name);
    if (!(await lstat(file)).isFile()) continue;
    const text = await readFile(file, 'latin1');
    if (text.includes(scratch)) await writeFile(file, text.replaceAll(scratch, path), 'latin1');
  }
}

function environmentKey(interpreter: PythonInterpreter, { packages, runCommands }: EnvironmentContents): string {
  // Packages in any order make the same environment; commands run in order, so their order counts.
  // JSON keeps a command holding a newline apart from two commands.
  const identity = runCommands.length === 0
    ? [interpreter.executable, ...[...packages].sort()].join('\n')
    : JSON.stringify([interpreter.executable, [...packages].sort(), runCommands]);
  return createHash('sha256').update(identity).digest('hex').slice(0, 16);
}
