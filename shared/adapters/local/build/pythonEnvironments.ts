import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inheritedEnvironment } from '../../../runtime/inheritedEnvironment.js';
import { runCommand } from '../../../system/runCommand.js';
import type { Sandbox, SandboxSpec } from '../sandbox/sandbox.js';
import { BuildFailure } from './buildFailure.js';
import { DefaultPackagesLayers } from './defaultPackagesLayer.js';
import { PIP_INSTALL, pipConfiguration } from './pipConfiguration.js';
import type { PythonInterpreter } from './pythonInterpreters.js';
import { clearSetIdBits } from './setIdBits.js';
import { pythonInstallation } from './pythonInterpreters.js';

export type OutputLine = (line: string) => void;

/** What an environment holds besides its interpreter: Python packages, then what the build commands made. */
export interface EnvironmentContents {
  packages: string[];
  /** Shell commands run in order after the packages are installed, in the environment (`run_commands`). */
  runCommands: string[];
  /** The default packages this version gets (defaultPackagesFor), installed before `packages`. */
  defaults?: readonly string[];
}

export interface PythonEnvironmentsOptions {
  /** Where environments go: <folder>/<key>; several services may share one (SLUICE_ENVIRONMENTS_DIR). */
  folder: string;
  /** Where each build's private scratch folder (its /tmp and home) goes. */
  scratchFolder: string;
  /** Extra arguments for `pip install` (SLUICE_PIP_ARGS). */
  pipArgs: string[];
  /** Confines venv and pip, and the packages' build code they run. */
  sandbox: Sandbox;
}

/**
 * Virtual environments, one per (interpreter, package list, run commands, default packages),
 * under <data dir>/envs. Versions that declare the same Python, packages and commands share one,
 * so a redeploy of the same dependencies builds in an instant. An environment is made in a
 * scratch folder and renamed into place when complete, so a crash never leaves a half-made one
 * that looks ready; one that lacks a default package it should hold (the index had none for its
 * Python) goes to a folder of its own, never reused, so a later build tries the default again.
 *
 * venv and pip run in the sandbox (a package's build runs its author's code): they see the
 * interpreter, pip's configuration and the environment being made, with the network for pip's
 * index, and the machine's setup of the service's variables plus PIP_*, nothing else of it.
 */
export class PythonEnvironments {
  private readonly inProgress = new Map<string, Promise<string>>();
  /** Environments kept out of the cache, by the number of builds given each (builds at once share one). */
  private readonly uncached = new Map<string, number>();
  private readonly defaults: DefaultPackagesLayers;

  constructor(private readonly options: PythonEnvironmentsOptions) {
    this.defaults = new DefaultPackagesLayers({
      folder: options.folder,
      scratchFolder: options.scratchFolder,
      pipArgs: options.pipArgs,
      run: async (command, args, writable, output) => {
        const scratch = join(writable, 'tmp');
        await mkdir(scratch, { recursive: true });
        const { spec, pipEnv } = buildSandbox(command, writable, scratch);
        return this.run(command, args, spec, pipEnv, output);
      },
    });
  }

  /** The environment's folder, made if needed. */
  ensure(interpreter: PythonInterpreter, contents: EnvironmentContents, output: OutputLine): Promise<string> {
    const key = environmentKey(interpreter, contents);
    const path = join(this.options.folder, key);
    if (existsSync(join(path, '.ready'))) {
      const { packages, runCommands, defaults = [] } = contents;
      const commands = runCommands.length ? `, ${runCommands.length} build command${runCommands.length > 1 ? 's' : ''}` : '';
      const held = [...defaults, ...packages];
      output(`Reusing the environment ${key} (Python ${interpreter.version}${held.length ? `, ${held.join(' ')}` : ''}${commands}).`);
      return Promise.resolve(path);
    }
    let making = this.inProgress.get(key);
    if (!making) {
      making = this.make(interpreter, contents, path, output).finally(() => this.inProgress.delete(key));
      this.inProgress.set(key, making);
    }
    return making.then((made) => {
      if (made !== path) this.uncached.set(made, (this.uncached.get(made) ?? 0) + 1);
      return made;
    });
  }

  /**
   * Says a build given this environment failed. One kept out of the cache (lacking a default) is
   * removed once every build given it failed: no version links to it. A cached one stays.
   */
  async discard(path: string): Promise<void> {
    const holders = (this.uncached.get(path) ?? 0) - 1;
    if (holders > 0) {
      this.uncached.set(path, holders);
      return;
    }
    if (!this.uncached.delete(path)) return;
    await rm(path, { recursive: true, force: true });
  }

  private async make(
    interpreter: PythonInterpreter,
    { packages, runCommands, defaults = [] }: EnvironmentContents,
    path: string,
    output: OutputLine,
  ): Promise<string> {
    // Unique to this maker: another process sharing the folder may be making the same environment.
    const scratch = `${path}.partial-${process.pid}-${randomUUID().slice(0, 8)}`;
    await mkdir(scratch, { recursive: true });
    await mkdir(this.options.scratchFolder, { recursive: true });
    const work = await mkdtemp(join(this.options.scratchFolder, 'build-'));
    const { spec, pipEnv } = buildSandbox(interpreter.executable, scratch, work);
    const python = join(scratch, 'bin', 'python');
    const pip = (names: string[]) => this.run(python, [...PIP_INSTALL, ...this.options.pipArgs, ...names], spec, pipEnv, output);
    try {
      output(`Creating a Python ${interpreter.version} environment.`);
      // Without pip only when nothing installs: build commands run `pip install` as in the image.
      const venvArgs = ['-m', 'venv', ...(packages.length === 0 && runCommands.length === 0 ? ['--without-pip'] : []), scratch];
      await this.step(interpreter.executable, venvArgs, spec, pipEnv, output, 'Creating the virtual environment failed');
      const missing = await this.defaults.copyInto(interpreter, defaults, scratch, output);
      if (packages.length > 0) {
        output(`Installing ${packages.join(' ')}`);
        const failed = await pip(packages);
        if (failed !== null) throw new BuildFailure(`pip install failed (${failed}); see the build logs.`);
      }
      // As a Dockerfile's RUN lines: each in a shell, in the environment, its output in the build log.
      const activated = { ...pipEnv, VIRTUAL_ENV: scratch, PATH: `${join(scratch, 'bin')}:${process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'}` };
      for (const [index, command] of runCommands.entries()) {
        output(`Running build command ${index + 1} of ${runCommands.length}: ${command}`);
        await this.step('/bin/sh', ['-c', command], { ...spec, cwd: scratch }, activated, output, `Build command ${index + 1} (${command}) failed`);
      }
      const cleared = runCommands.length > 0 ? await clearSetIdBits(scratch) : [];
      if (cleared.length > 0)
        output(
          `Cleared the setuid/setgid bits the build commands left on ${cleared.length} file${cleared.length > 1 ? 's' : ''}: a function runs with no more privileges than its own.`,
        );
      const target = missing.length === 0 ? path : `${path}.without-${missing.join('-')}-${randomUUID().slice(0, 8)}`;
      await relocateScripts(scratch, target);
      await writeFile(join(scratch, '.ready'), `${interpreter.executable}\n${[...defaults, ...packages, ...runCommands].join('\n')}\n`);
      return await settle(scratch, target);
    } finally {
      await rm(work, { recursive: true, force: true });
      // A failed install leaves no half-made environment behind (after the rename, nothing is left to remove).
      await rm(scratch, { recursive: true, force: true });
    }
  }

  private async step(command: string, args: string[], spec: SandboxSpec, pipEnv: Record<string, string>, output: OutputLine, failure: string): Promise<void> {
    const why = await this.run(command, args, spec, pipEnv, output);
    if (why !== null) throw new BuildFailure(`${failure} (${why}); see the build logs.`);
  }

  /** Runs a build command in the sandbox, its output in the build log: null when it succeeded, else why not (pip's last ERROR line, say). */
  private async run(command: string, args: string[], spec: SandboxSpec, pipEnv: Record<string, string>, output: OutputLine): Promise<string | null> {
    const confined = this.options.sandbox.wrap(command, args, spec);
    const inherited = inheritedEnvironment(process.env, /^PIP_/);
    const env = { ...inherited, PATH: inherited.PATH ?? '/usr/local/bin:/usr/bin:/bin', ...pipEnv, HOME: confined.scratch, TMPDIR: confined.scratch };
    let error = '';
    const onLine = (line: string) => {
      output(line);
      // pip's last ERROR line says why ("No matching distribution found for x"), but for a
      // conflict it is "ResolutionImpossible: for help visit ...": the line before names the package.
      if (line.startsWith('ERROR: ') && !(error !== '' && line.startsWith('ERROR: ResolutionImpossible'))) error = line.slice('ERROR: '.length);
    };
    const result = await runCommand(confined.command, confined.args, { cwd: confined.cwd, env, onLine, timeoutMs: 30 * 60_000 });
    if (result.exitCode === 0) return null;
    return result.spawnError ?? (result.timedOut ? 'timed out' : error || `exit status ${result.exitCode ?? result.signal}`);
  }
}

/**
 * What a build step of `executable` sees: the interpreter's installation and pip's configuration
 * read-only, `writable` (what it makes), `scratch` as its /tmp and home; and the pip variables
 * that name that configuration.
 */
function buildSandbox(executable: string, writable: string, scratch: string): { spec: SandboxSpec; pipEnv: Record<string, string> } {
  const pipConfig = pipConfiguration(process.env);
  const installation = pythonInstallation(executable);
  return {
    spec: { readOnly: [...(installation === null ? [] : [installation]), ...pipConfig.files], writable: [writable], scratch, devices: [] },
    pipEnv: pipConfig.env,
  };
}

/**
 * Renames a made environment into place. Where another process sharing the folder put the same
 * environment there first, that one is used (versions may already link to it) and this one dropped.
 */
async function settle(scratch: string, path: string): Promise<string> {
  if (existsSync(join(path, '.ready'))) return path;
  try {
    await rename(scratch, path);
  } catch {
    // A folder is there: the same environment, made meanwhile by another process, or one without .ready (left by hand).
    if (existsSync(join(path, '.ready'))) return path;
    await rm(path, { recursive: true, force: true });
    await rename(scratch, path);
  }
  return path;
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

/** The folder name of an environment: the same for versions whose environments are the same. */
export function environmentKey(interpreter: PythonInterpreter, { packages, runCommands, defaults = [] }: EnvironmentContents): string {
  // Packages in any order make the same environment; commands run in order, so their order counts.
  // The defaults count too: an environment made before them, or without one, is not one with them.
  const identity = JSON.stringify({ python: interpreter.executable, packages: [...packages].sort(), runCommands, defaults: [...defaults].sort() });
  return createHash('sha256').update(identity).digest('hex').slice(0, 16);
}
