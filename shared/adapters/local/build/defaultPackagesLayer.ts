import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { constants } from 'node:fs';
import { copyFile, cp, lstat, mkdir, readdir, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { installDefaultPackages } from './defaultPackagesStep.js';
import { PIP_INSTALL } from './pipConfiguration.js';
import type { PythonInterpreter } from './pythonInterpreters.js';

type OutputLine = (line: string) => void;

/** Runs a command in the build sandbox, writing only `writable`: null when it succeeded, else why not. */
export type SandboxedRun = (command: string, args: string[], writable: string, output: OutputLine) => Promise<string | null>;

interface Layer {
  /** The folder the packages were installed into (`pip install --target`). */
  site: string;
  /** The defaults pip could not install for this Python. */
  missing: string[];
}

export interface DefaultPackagesLayersOptions {
  /** Where complete layers are kept, beside the environments: <folder>/defaults-<key>. */
  folder: string;
  /** Where a layer that lacks a default is kept for this process only (emptied at each start). */
  scratchFolder: string;
  pipArgs: string[];
  run: SandboxedRun;
}

/**
 * The default packages (requests, pydantic...) installed once per interpreter and list, with `pip
 * install --target` in the build sandbox, then copied into each new environment before its own
 * packages are installed (so the version's requirements win any conflict: pip sees them there).
 * One pip run per interpreter, not one per environment: an index that is slow to answer (or a
 * mirror behind an unreachable primary index) costs once, and an environment with no packages
 * of its own is still made without pip. A layer that lacks a default (no release for that Python)
 * is kept for this process only, so a later start tries again.
 */
export class DefaultPackagesLayers {
  private readonly layers = new Map<string, Promise<Layer>>();

  constructor(private readonly options: DefaultPackagesLayersOptions) {}

  /** Copies the defaults into an environment's site-packages; the ones it could not have. */
  async copyInto(interpreter: PythonInterpreter, defaults: readonly string[], environment: string, output: OutputLine): Promise<string[]> {
    if (defaults.length === 0) return [];
    let madeHere = false;
    const layer = await this.layer(interpreter, defaults, (line) => ((madeHere = true), output(line)));
    const entries = existsSync(layer.site) ? (await readdir(layer.site)).filter((name) => name !== 'bin') : [];
    if (entries.length > 0) {
      const sitePackages = join(environment, 'lib', `python${interpreter.version}`, 'site-packages');
      for (const name of entries) await copyTree(join(layer.site, name), join(sitePackages, name));
      output(`Added the default packages: ${defaults.filter((name) => !layer.missing.includes(name)).join(' ')}`);
    }
    if (layer.missing.length > 0 && !madeHere) {
      // Said in full by the build that tried; each build without them says so too.
      output(
        `Warning: not installed for Python ${interpreter.version} (pip could not, when this service tried at its start): ${layer.missing.join(' ')}. The build goes on without them.`,
      );
    }
    return layer.missing;
  }

  private layer(interpreter: PythonInterpreter, defaults: readonly string[], output: OutputLine): Promise<Layer> {
    const key = createHash('sha256')
      .update(JSON.stringify({ python: interpreter.executable, defaults: [...defaults].sort() }))
      .digest('hex')
      .slice(0, 16);
    const kept = join(this.options.folder, `defaults-${key}`);
    if (existsSync(join(kept, '.ready'))) return Promise.resolve({ site: join(kept, 'site'), missing: [] });
    let making = this.layers.get(key);
    if (!making) {
      making = this.make(interpreter, defaults, kept, output);
      this.layers.set(key, making);
      // A failure of the machinery (not pip's: that is a warning) lets the next build try again.
      making.catch(() => this.layers.delete(key));
    }
    return making;
  }

  private async make(interpreter: PythonInterpreter, defaults: readonly string[], kept: string, output: OutputLine): Promise<Layer> {
    await mkdir(this.options.scratchFolder, { recursive: true });
    const scratch = join(this.options.scratchFolder, `defaults-${randomUUID().slice(0, 8)}`);
    await mkdir(scratch, { recursive: true });
    const installer = join(scratch, 'installer');
    const site = join(scratch, 'site');
    output(`Installing the default packages for Python ${interpreter.version}, once for every environment of it: ${defaults.join(' ')}`);
    const venv = await this.options.run(interpreter.executable, ['-m', 'venv', installer], scratch, output);
    if (venv !== null) throw new Error(`Creating the default packages' installer failed (${venv})`);
    const pip = (names: string[]) =>
      this.options.run(join(installer, 'bin', 'python'), [...PIP_INSTALL, ...this.options.pipArgs, '--target', site, ...names], scratch, output);
    const missing = await installDefaultPackages(defaults, interpreter.version, pip, output);
    await rm(installer, { recursive: true, force: true });
    if (missing.length > 0) return { site, missing };
    await writeFile(join(scratch, '.ready'), `${interpreter.executable}\n${defaults.join('\n')}\n`);
    await mkdir(this.options.folder, { recursive: true });
    try {
      await moveInto(scratch, kept);
    } catch {
      // Another process sharing the folder put the same layer there first: it is the same.
      if (!existsSync(join(kept, '.ready'))) throw new Error(`The default packages could not be put in ${kept}`);
      await rm(scratch, { recursive: true, force: true });
    }
    return { site: join(kept, 'site'), missing: [] };
  }
}

/**
 * The folder's files copied to `to`, as copy-on-write clones where the file system makes them.
 * Never hard links: a build command of one organization's version that writes a default
 * package's file in place would write it for every environment made after.
 */
async function copyTree(from: string, to: string): Promise<void> {
  const info = await lstat(from);
  if (info.isDirectory()) {
    await mkdir(to, { recursive: true });
    for (const name of await readdir(from)) await copyTree(join(from, name), join(to, name));
  } else if (info.isSymbolicLink()) {
    await symlink(await readlink(from), to);
  } else {
    await copyFile(from, to, constants.COPYFILE_FICLONE);
  }
}

/**
 * Renames a finished layer into place; where the environments folder is on another filesystem
 * than the scratch folder (EXDEV), copies it beside its place first, so it still appears whole.
 */
async function moveInto(from: string, to: string): Promise<void> {
  try {
    return await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
  }
  const partial = `${to}.partial-${process.pid}-${randomUUID().slice(0, 8)}`;
  try {
    await cp(from, partial, { recursive: true, verbatimSymlinks: true });
    await rename(partial, to);
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
  await rm(from, { recursive: true, force: true });
}
