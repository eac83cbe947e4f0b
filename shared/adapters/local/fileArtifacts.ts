import { createReadStream } from 'node:fs';
import { access, copyFile, mkdir, readdir, rename, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Artifacts, OutputFileContent } from '../../ports/artifacts.js';
import { FILE_SLOT_PATTERN, type FileSlot } from '../../domain/fileOutputs.js';
import type { LocalDownloads } from './localDownloads.js';
import type { LocalUploads } from './localUploads.js';

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/** A file's bytes as a stream, or null when it does not exist. */
async function openFile(path: string): Promise<AsyncIterable<Uint8Array> | null> {
  try {
    await access(path);
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
  return createReadStream(path);
}

/** The folder of a job's output files (one folder per slot inside), which retention deletes whole. */
export const jobFilesFolder = (dataDir: string, jobId: string) => join(dataDir, 'files', basename(jobId));

/** The folder of a job's output file in `slot`. */
function outputFolder(dataDir: string, jobId: string, slot: FileSlot): string {
  // A slot names a folder: only digits and one dot ever reach the path.
  if (!FILE_SLOT_PATTERN.test(String(slot))) throw new Error(`Not a file slot: ${String(slot)}`);
  return join(jobFilesFolder(dataDir, jobId), String(slot));
}

/** Where the job's output file in `slot` lies, or null when it has none. */
async function outputPath(dataDir: string, jobId: string, slot: FileSlot): Promise<string | null> {
  const folder = outputFolder(dataDir, jobId, slot);
  const names = await readdir(folder).catch((error: unknown) => {
    if (isMissing(error)) return [];
    throw error;
  });
  const name = names.find((entry) => entry !== '.partial');
  return name === undefined ? null : join(folder, name);
}

/** The job's output file in `slot`, to stream, or null when it has none (what LocalDownloads serves). */
export async function openOutputFile(dataDir: string, jobId: string, slot: FileSlot): Promise<OutputFileContent | null> {
  const path = await outputPath(dataDir, jobId, slot);
  if (path === null) return null;
  const { size } = await stat(path);
  return { name: basename(path), size, stream: createReadStream(path) };
}

/**
 * Bundles under <data dir>/bundles and output files under <data dir>/files, each written whole
 * or not at all; uploads and downloads through the service's own signed URLs (LocalUploads,
 * LocalDownloads), as S3's presigned ones on AWS. Without `downloads` (a tool that serves no
 * files) output files have no URL.
 */
export function createFileArtifacts(dataDir: string, uploads: LocalUploads, downloads?: LocalDownloads): Artifacts {
  const bundles = join(dataDir, 'bundles');
  const bundlePath = (versionId: string) => join(bundles, `${versionId}.tar.gz`);
  /** Writes a version's bundle whole or not at all. */
  const writeBundle = async (versionId: string, write: (temporary: string) => Promise<void>) => {
    await mkdir(bundles, { recursive: true });
    const temporary = `${bundlePath(versionId)}.partial`;
    await write(temporary);
    await rename(temporary, bundlePath(versionId));
  };
  const signedUrl = (jobId: string, slot: FileSlot): string => {
    if (!downloads) throw new Error('These artifacts were made without download URLs.');
    return downloads.urlFor(jobId, slot);
  };
  return {
    putBundle(versionId, bundle) {
      return writeBundle(versionId, (temporary) => writeFile(temporary, bundle));
    },
    readBundle(versionId) {
      return openFile(bundlePath(versionId));
    },
    async uploadUrl(upload) {
      await uploads.sweep();
      return uploads.urlFor(upload);
    },
    uploadSize(organizationId, uploadId) {
      return uploads.sizeOf(organizationId, uploadId);
    },
    async readUpload(organizationId, uploadId) {
      if ((await uploads.sizeOf(organizationId, uploadId)) === null) return null;
      return openFile(uploads.pathOf(organizationId, uploadId));
    },
    putUploadFile(organizationId, uploadId, sourcePath, size) {
      return uploads.putFile(organizationId, uploadId, sourcePath, size);
    },
    putBundleFromUpload(versionId, organizationId, uploadId) {
      return writeBundle(versionId, (temporary) => copyFile(uploads.pathOf(organizationId, uploadId), temporary));
    },
    async putOutputFile(jobId, slot, name, sourcePath) {
      const folder = outputFolder(dataDir, jobId, slot);
      await mkdir(folder, { recursive: true });
      const temporary = join(folder, '.partial');
      await copyFile(sourcePath, temporary);
      await rename(temporary, join(folder, basename(name) || 'file'));
    },
    openOutputFile(jobId, slot) {
      return openOutputFile(dataDir, jobId, slot);
    },
    async outputFileUrl(jobId, slot) {
      return (await outputPath(dataDir, jobId, slot)) === null ? null : signedUrl(jobId, slot);
    },
    async signedOutputFileUrl(jobId, slot) {
      return signedUrl(jobId, slot);
    },
    async outputFileOfUrl(url) {
      return downloads ? downloads.fileOf(url) : null;
    },
  };
}
