import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { functionMetadataSchema } from '../domain/functionMetadata.js';
import { inspectFunctions } from '../packaging/inspectFunctions.js';
import { packDirectory } from '../packaging/packDirectory.js';
import type { Principal } from '../services/principal.js';
import type { Services } from '../services/services.js';

/**
 * Deploys each function under examples/ that the organization does not have yet, so a
 * newcomer's first start has something to call. Returns the names deployed.
 */
export async function deployExamples(services: Services, principal: Principal, examplesDir: string, python: string): Promise<string[]> {
  const deployed: string[] = [];
  const entries = await readdir(examplesDir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const directory = join(examplesDir, entry.name);
    const inspected = await inspectFunctions(directory, python);
    if (!inspected.ok) throw new Error(`examples/${entry.name}: ${inspected.errors.join('; ')}`);
    for (const raw of inspected.functions) {
      const metadata = functionMetadataSchema.parse(raw);
      if (await services.functions.exists(principal, principal.organizationName, metadata.name)) continue;
      await services.deploy.deploy(principal, principal.organizationName, metadata, { bundle: await packDirectory(directory) });
      deployed.push(`${principal.organizationName}/${metadata.name}`);
    }
  }
  return deployed;
}
