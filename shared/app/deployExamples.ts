import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { FunctionMetadata } from '../domain/functionMetadata.js';
import { functionMetadataSchema } from '../domain/functionMetadata.js';
import { inspectFunctions } from '../packaging/inspectFunctions.js';
import { packDirectory } from '../packaging/packDirectory.js';
import type { Principal } from '../services/principal.js';
import type { Services } from '../services/services.js';

/**
 * The folders under examples/, split in two: starters install nothing, so a start deploys them;
 * the others (video, audio, ML) install packages, whose pip installs would make a first start
 * slow and fail it on a machine whose pip reaches no index, so they are left to
 * `sluice deploy examples/<name>`.
 */
export async function exampleFolders(examplesDir: string, python: string) {
  const starters: { directory: string; functions: FunctionMetadata[] }[] = [];
  const installing: string[] = [];
  const entries = await readdir(examplesDir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const directory = join(examplesDir, entry.name);
    const inspected = await inspectFunctions(directory, python);
    if (!inspected.ok) throw new Error(`examples/${entry.name}: ${inspected.errors.join('; ')}`);
    const functions = inspected.functions.map((raw) => functionMetadataSchema.parse(raw));
    if (functions.some(installsSomething)) installing.push(`examples/${entry.name}`);
    else starters.push({ directory, functions });
  }
  return { starters, installing };
}

const installsSomething = (metadata: FunctionMetadata) =>
  metadata.python_packages.length > 0 || metadata.system_packages.length > 0 || metadata.run_commands.length > 0;

/**
 * Deploys each starter example's functions that the organization does not have yet, so a
 * newcomer's first start has something to call. Returns the names deployed, and the folders
 * of the examples left out (they install packages).
 */
export async function deployExamples(
  services: Services,
  principal: Principal,
  examplesDir: string,
  python: string,
): Promise<{ deployed: string[]; installing: string[] }> {
  const { starters, installing } = await exampleFolders(examplesDir, python);
  const deployed: string[] = [];
  for (const { directory, functions } of starters) {
    for (const metadata of functions) {
      if (await services.functions.exists(principal, principal.organizationName, metadata.name)) continue;
      await services.deploy.deploy(principal, principal.organizationName, metadata, { bundle: await packDirectory(directory) });
      deployed.push(`${principal.organizationName}/${metadata.name}`);
    }
  }
  return { deployed, installing };
}

/** What a start says of the examples it left out. */
export const examplesLeftOutLine = (installing: string[]) =>
  `Examples that install packages are left to you: npx sluice deploy DIR, for ${installing.join(', ')}`;
