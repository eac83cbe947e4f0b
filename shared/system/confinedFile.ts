import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { open, readlink, realpath } from 'node:fs/promises';

/**
 * Opens a file a confined process named, for the service to read, when it is a regular file
 * inside one of `roots` once every link is followed; null otherwise. The check is made on the
 * opened file (through /proc/self/fd), so a link swapped in after it changes nothing, and a
 * FIFO cannot hold the service up. Read it through the returned path; close it after.
 */
export async function openConfinedFile(path: string | null, roots: string[]): Promise<{ path: string; close(): Promise<void> } | null> {
  if (path === null) return null;
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const opened = `/proc/self/fd/${handle.fd}`;
    const [real, stat, realRoots] = await Promise.all([readlink(opened), handle.stat(), Promise.all(roots.map((root) => realpath(root)))]);
    if (stat.isFile() && realRoots.some((root) => real.startsWith(`${root}/`))) return { path: opened, close: () => handle.close() };
  } catch {
    // A root that is gone, or no /proc: refused below.
  }
  await handle.close();
  return null;
}
