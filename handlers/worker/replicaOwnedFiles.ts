import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { ReplicaProcess } from '../../shared/runtime/replicaPool.js';

/**
 * The agent (root) reads a file output by the path the replica names: it opens only a regular
 * file the replica's own user owns, so a function cannot have the agent read what it could not
 * (the agent's /proc/<pid>/environ, where the task's credentials are). The file is read through
 * the descriptor opened here, so it cannot be swapped for a link after the check; null refuses it.
 */
export function openReplicaOwnedFile(replicaUid: number): NonNullable<ReplicaProcess['openOutput']> {
  return async (path) => {
    let handle;
    try {
      // Non-blocking: a FIFO cannot hold the agent at open.
      handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch {
      return null;
    }
    const info = await handle.stat().catch(() => null);
    if (!info?.isFile() || info.uid !== replicaUid) {
      await handle.close();
      return null;
    }
    const opened = handle;
    return { path: `/proc/self/fd/${opened.fd}`, close: () => opened.close() };
  };
}
