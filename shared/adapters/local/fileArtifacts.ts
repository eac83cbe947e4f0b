import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Artifacts } from '../../ports/artifacts.js';

/** Bundles as files under <data dir>/bundles, written whole or not at all. */
export function createFileArtifacts(dataDir: string): Artifacts {
  const folder = join(dataDir, 'bundles');
  const pathOf = (versionId: string) => join(folder, `${versionId}.tar.gz`);
  return {
    async putBundle(versionId, bundle) {
      await mkdir(folder, { recursive: true });
      const temporary = `${pathOf(versionId)}.partial`;
      await writeFile(temporary, bundle);
      await rename(temporary, pathOf(versionId));
    },
    async getBundle(versionId) {
      try {
        return await readFile(pathOf(versionId));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
  };
}
