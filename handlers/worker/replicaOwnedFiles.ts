import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { JobRecord } from '../../shared/domain/job.js';

type StoreFile = (job: JobRecord, index: number, path: string, name: string) => Promise<unknown>;

/**
 * The agent (root) reads a file output by the path the replica names: it stores only a regular
 * file the replica's own user owns, so a function cannot have the agent read what it could not
 * (the agent's /proc/<pid>/environ, where the task's credentials are). The file is opened once
 * and read through that descriptor, so it cannot be swapped for a link after the check.
 */
export function storeReplicaOwnedFiles(storeFile: StoreFile, replicaUid: number | undefined): StoreFile {
  if (replicaUid === undefined) return storeFile;
  return async (job, index, path, name) => {
    // Non-blocking: a FIFO cannot hold the agent at open.
    const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const info = await handle.stat();
      if (!info.isFile() || info.uid !== replicaUid) throw new Error(`${name}: a file output must be a regular file the function wrote`);
      return await storeFile(job, index, `/proc/self/fd/${handle.fd}`, name);
    } finally {
      await handle.close();
    }
  };
}
