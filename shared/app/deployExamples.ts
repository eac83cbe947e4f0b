import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { FunctionMetadata } from '../domain/functionMetadata.js';
import { functionMetadataSchema } from '../domain/functionMetadata.js';
import { inspectFunctions } from '../packaging/inspectFunctions.js';
import { packDirectory } from '../packaging/packDirectory.js';
import type { Principal } from '../services/principal.js';
import type { Services } from '../services/services.js';

/** What a start did with examples/: functions deployed, and folders left for `sluice deploy`. */
export interface ExamplesDeployed {
  deployed: string[];
  /** Folders (examples/<name>) whose functions install packages: left out of a start. */
  installing: string[];
}

/**
 * Deploys each function under examples/ that the organization does not have yet, so a
 * newcomer's first start has something to call. Examples that install packages (video, audio,
 * ML) are left out: their pip installs would make a first start slow, and fail it on a
 * machine whose pip cannot reach them; `sluice deploy examples/<name>` deploys one.
 */
export async function deployExamples(services: Services, principal: Principal, examplesDir: string, python: string): Promise<ExamplesDeployed> {
  const result: ExamplesDeployed = { deployed: [], installing: [] };
  const entries = await readdir(examplesDir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const directory = join(examplesDir, entry.name);
    const inspected = await inspectFunctions(directory, python);
    if (!inspected.ok) throw new Error(`examples/${entry.name}: ${inspected.errors.join('; ')}`);
    const functions = inspected.functions.map((raw) => functionMetadataSchema.parse(raw));
    if (functions.some(installsSomething)) {
      result.installing.push(`examples/${entry.name}`);
      continue;
    }
    for (const metadata of functions) {
      if (await services.functions.exists(principal, principal.organizationName, metadata.name)) continue;
      await services.deploy.deploy(principal, principal.organizationName, metadata, { bundle: await packDirectory(directory) });
      result.deployed.push(`${principal.organizationName}/${metadata.name}`);
    }
  }
  return result;
}

const installsSomething = (metadata: FunctionMetadata) =>
  metadata.python_packages.length > 0 || metadata.system_packages.length > 0 || metadata.run_commands.length > 0;
