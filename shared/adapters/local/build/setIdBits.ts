import { chmod, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

const SET_ID_BITS = 0o6000;

/**
 * Clears the setuid and setgid bits of every file under `folder` and returns the files it
 * changed. run_commands may leave such a file; a replica that ran it would gain its owner's
 * user (root, where the build ran as root), so none survives a build, as the AWS image's
 * Dockerfile also strips them.
 */
export async function clearSetIdBits(folder: string): Promise<string[]> {
  const cleared: string[] = [];
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const { mode } = await lstat(path);
    if ((mode & SET_ID_BITS) === 0) continue;
    await chmod(path, mode & 0o777 & ~SET_ID_BITS);
    cleared.push(path);
  }
  return cleared;
}
