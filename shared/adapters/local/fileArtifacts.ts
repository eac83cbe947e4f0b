import { copyFile, mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Artifacts } from '../../ports/artifacts.js';

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/** Bundles under <data dir>/bundles and output files under <data dir>/files, each written whole or not at all. */
export function createFileArtifacts(dataDir: string): Artifacts {
  const bundles = join(dataDir, 'bundles');
  const files = join(dataDir, 'files');
  const bundlePath = (versionId: string) => join(bundles, `${versionId}.tar.gz`);
  const outputFolder = (jobId: string, index: number) => join(files, basename(jobId), String(index));
  return {
    async putBundle(versionId, bundle) {
      await mkdir(bundles, { recursive: true });
      const temporary = `${bundlePath(versionId)}.partial`;
      await writeFile(temporary, bundle);
      await rename(temporary, bundlePath(versionId));
    },
    async getBundle(versionId) {
      return readFile(bundlePath(versionId)).catch((error: unknown) => {
        if (isMissing(error)) return null;
        throw error;
      });
    },
    async putOutputFile(jobId, index, name, sourcePath) {
      const folder = outputFolder(jobId, index);
      await mkdir(folder, { recursive: true });
      const temporary = join(folder, '.partial');
      await copyFile(sourcePath, temporary);
      await rename(temporary, join(folder, basename(name) || 'file'));
    },
    async getOutputFile(jobId, index) {
      const folder = outputFolder(jobId, index);
      const names = await readdir(folder).catch((error: unknown) => {
        if (isMissing(error)) return [];
        throw error;
      });
      const name = names.find((entry) => entry !== '.partial');
      return name === undefined ? null : { name, data: await readFile(join(folder, name)) };
    },
  };
}
