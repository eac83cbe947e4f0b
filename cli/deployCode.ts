import { copyFile, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { listBundleFiles } from '../shared/packaging/bundleFiles.js';
import { inspectFunctions } from '../shared/packaging/inspectFunctions.js';
import { CliError } from './client.js';

export interface DeployCode {
  /** The folder the bundle's paths are relative to. */
  root: string;
  /** What goes into the bundle. */
  files: string[];
  /** The metadata of each function the code declares. */
  functions: unknown[];
}

/**
 * The code `sluice deploy PATH` sends: a folder's files less what its .gitignore and
 * .sluiceignore exclude, or one .py file alone. Only those files' functions are read: the
 * inspector sees a copy of their .py files, never an ignored one.
 */
export async function readCode(target: string, python: string): Promise<DeployCode> {
  const path = resolve(target);
  const info = await stat(path).catch(() => null);
  if (!info) throw new CliError(`Cannot deploy ${target}: no such file or folder.`);
  let root = path;
  let files: string[];
  if (info.isDirectory()) files = await listBundleFiles(path);
  else if (info.isFile() && path.endsWith('.py')) [root, files] = [dirname(path), [basename(path)]];
  else throw new CliError(`Cannot deploy ${target}: sluice deploy takes a folder or a .py file.`);
  const staged = await mkdtemp(join(tmpdir(), 'sluice-inspect-'));
  try {
    for (const file of files.filter((name) => name.endsWith('.py'))) {
      await mkdir(dirname(join(staged, file)), { recursive: true });
      await copyFile(join(root, file), join(staged, file));
    }
    const inspected = await inspectFunctions(staged, python);
    if (!inspected.ok) throw new CliError(`Cannot deploy ${path}:\n${inspected.errors.map((error) => `  ${error.replaceAll(staged, path)}`).join('\n')}`);
    return { root, files, functions: inspected.functions };
  } finally {
    await rm(staged, { recursive: true, force: true });
  }
}
