import { stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { listBundleFiles } from '../shared/packaging/bundleFiles.js';
import { inspectFunctions } from '../shared/packaging/inspectFunctions.js';
import { CliError } from './client.js';
import { moduleEvaluator } from './moduleEvaluator.js';

export interface DeployCode {
  /** The folder the bundle's paths are relative to. */
  root: string;
  /** What goes into the bundle. */
  files: string[];
  /** The metadata of each function the code declares. */
  functions: unknown[];
  /** What the inspector noticed without refusing the code (a cover image too large to keep, say). */
  warnings: string[];
}

/**
 * The code `sluice deploy PATH` sends: a folder's files less what its .gitignore and
 * .sluiceignore exclude, or one .py file alone. Only those files' functions are read (the
 * inspector is told which .py files are in), in the folder itself, so the README and images
 * beside them are there as they are when Sieve's deploy reads them.
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
  const evaluator = await moduleEvaluator(python, root);
  try {
    const inspected = await inspectFunctions(root, python, { only: files.filter((name) => name.endsWith('.py')), evaluator: evaluator.command });
    const unconfined = evaluator.warning !== null && inspected.evaluated.length > 0 ? [`${inspected.evaluated.join(', ')}: ${evaluator.warning}`] : [];
    const warnings = [...unconfined, ...inspected.warnings];
    if (!inspected.ok) throw new CliError(`Cannot deploy ${path}:\n${inspected.errors.map((error) => `  ${error}`).join('\n')}`);
    return { root, files, functions: inspected.functions, warnings };
  } finally {
    await evaluator.close();
  }
}
