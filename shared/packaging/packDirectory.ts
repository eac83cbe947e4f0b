import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import * as tar from 'tar';

/** Folders that are never part of a function's code. */
const SKIPPED = new Set(['.git', '.hg', '.svn', '__pycache__', '.venv', 'venv', 'node_modules', '.mypy_cache', '.pytest_cache', '.data']);

/** A function's directory as a gzipped tar, without caches, VCS folders and virtual environments. */
export async function packDirectory(directory: string): Promise<Buffer> {
  const files = await listFiles(directory, directory);
  const chunks: Buffer[] = [];
  const stream = tar.c({ gzip: true, cwd: directory, portable: true, noMtime: true }, files);
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function listFiles(root: string, directory: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const path = join(directory, entry.name);
    if (entry.isDirectory()) files.push(...(await listFiles(root, path)));
    else if (entry.isFile()) files.push(relative(root, path));
  }
  return files.sort();
}
