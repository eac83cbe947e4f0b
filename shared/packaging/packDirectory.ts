import * as tar from 'tar';
import { listBundleFiles } from './bundleFiles.js';

/** A function's folder as a gzipped tar: the files `listBundleFiles` keeps. */
export async function packDirectory(directory: string): Promise<Buffer> {
  return packFiles(directory, await listBundleFiles(directory));
}

/** Some files of a folder (paths relative to it) as a gzipped tar, the same bytes for the same files. */
export async function packFiles(directory: string, files: string[]): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const stream = tar.c({ gzip: true, cwd: directory, portable: true, noMtime: true }, files);
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}
