import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ServiceError } from '../../domain/errors.js';

export interface DataDirectoryLock {
  release(): void;
}

export const lockFilePath = (dataDir: string) => join(dataDir, 'service.lock');

/**
 * Holds a data directory for one service: an exclusive SQLite lock on `<data dir>/service.lock`
 * (a POSIX lock underneath), refused at once while another service holds it. The OS drops the
 * lock when its process ends, however it ends, so a killed service never blocks the next start.
 * The operator's `sluice keys` commands do not take it: they work beside a running service.
 */
export function lockDataDirectory(dataDir: string): DataDirectoryLock {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = lockFilePath(dataDir);
  const db = new Database(path, { timeout: 0 });
  try {
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
    throw new ServiceError(
      'conflict',
      `Another Sluice service is already running on the data directory ${dataDir} (it holds ${path}). Stop it first, or give this one another --data-dir.`,
    );
  }
  return { release: () => db.close() };
}
