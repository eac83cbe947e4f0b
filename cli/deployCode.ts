import { stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { functionMetadataSchema } from '../shared/domain/functionMetadata.js';
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
 * The code `sluice deploy PATH` sends: a folder's files less what its ignore files exclude. For
 * one .py file, the folder that holds it is sent, as `sieve deploy app.py` sends it (the file
 * reads its README and imports its helper modules from there), and only that file's functions
 * are deployed. The inspector is told which .py files to read, in the folder itself, so the
 * README and images beside them are there as they are when Sieve's deploy reads them.
 */
export async function readCode(target: string, python: string): Promise<DeployCode> {
  const path = resolve(target);
  const info = await stat(path).catch(() => null);
  if (!info) throw new CliError(`Cannot deploy ${target}: no such file or folder.`);
  const single = info.isFile() && path.endsWith('.py');
  if (!info.isDirectory() && !single) throw new CliError(`Cannot deploy ${target}: sluice deploy takes a folder or a .py file.`);
  const root = single ? dirname(path) : path;
  const files = await listBundleFiles(root);
  if (single && !files.includes(basename(path))) throw new CliError(`Cannot deploy ${target}: its folder's ignore files leave it out.`);
  const evaluator = await moduleEvaluator(python, root);
  try {
    const only = single ? [basename(path)] : files.filter((name) => name.endsWith('.py'));
    const inspected = await inspectFunctions(root, python, { only, evaluator: evaluator.command });
    const unconfined = evaluator.warning !== null && inspected.evaluated.length > 0 ? [`${inspected.evaluated.join(', ')}: ${evaluator.warning}`] : [];
    const warnings = [...unconfined, ...inspected.warnings];
    if (!inspected.ok) throw new CliError(`Cannot deploy ${path}:\n${inspected.errors.map((error) => `  ${error}`).join('\n')}`);
    // The service's own rules, before anything is uploaded: a deploy of several functions stops whole, not part-way.
    const refused = inspected.functions.flatMap((metadata) => {
      const checked = functionMetadataSchema.safeParse(metadata);
      const name = (metadata as { name?: unknown }).name;
      return checked.success ? [] : checked.error.issues.map((issue) => `  ${String(name)}: ${issue.path.join('.')}: ${issue.message}`);
    });
    if (refused.length > 0) throw new CliError(`Cannot deploy ${path}; nothing was deployed:\n${refused.join('\n')}`);
    return { root, files, functions: inspected.functions, warnings };
  } finally {
    await evaluator.close();
  }
}
