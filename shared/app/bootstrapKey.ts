import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KeyService } from '../services/keyService.js';

export interface BootstrapKey {
  key: string;
  organization: string;
  /** Where the key is kept for the CLI and for the next start. */
  path: string;
  created: boolean;
}

export const apiKeyPath = (dataDir: string) => join(dataDir, 'api-key');

/**
 * The local mode's first key. SLUICE_API_KEY, when set, is that key; otherwise the key in
 * <data dir>/api-key while it is still active, otherwise a new one. Keys are stored hashed,
 * so the file (mode 0600) is the only place the key itself is kept.
 */
export async function ensureBootstrapKey(keys: KeyService, dataDir: string, organization: string, preset?: string): Promise<BootstrapKey> {
  const path = apiKeyPath(dataDir);
  const saved = preset ?? (await readFile(path, 'utf8').catch(() => '')).trim();
  let created = false;
  let key = saved;
  if (!saved || !(await keys.isActive(saved))) {
    key = (await keys.createKey(organization, saved || undefined)).secret;
    created = true;
  }
  await writeFile(path, `${key}\n`, { mode: 0o600 });
  await chmod(path, 0o600);
  return { key, organization, path, created };
}
