import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KeyService } from '../services/keyService.js';

export interface BootstrapKey {
  key: string;
  organization: string;
  /** Where the key is kept for the CLI and for the next start. */
  path: string;
  created: boolean;
  /**
   * The key was revoked (with `sluice keys revoke`): it no longer works, and is not replaced
   * behind the operator's back. The service starts all the same and says so.
   */
  revoked: boolean;
  /** The key came from SLUICE_API_KEY rather than the file. */
  preset: boolean;
}

export const apiKeyPath = (dataDir: string) => join(dataDir, 'api-key');

/**
 * The local mode's first key. SLUICE_API_KEY, when set, is that key; otherwise the key in
 * <data dir>/api-key; a key the store does not know yet is created, and with no key at all a
 * new one is. Keys are stored hashed, so the file (mode 0600) is the only place the key itself is kept.
 */
export async function ensureBootstrapKey(keys: KeyService, dataDir: string, organization: string, preset?: string): Promise<BootstrapKey> {
  const path = apiKeyPath(dataDir);
  const saved = preset ?? (await readFile(path, 'utf8').catch(() => '')).trim();
  const state = saved ? await keys.keyState(saved) : 'unknown';
  let key = saved;
  if (state === 'unknown') key = (await keys.createKey(organization, saved || undefined)).secret;
  await writeFile(path, `${key}\n`, { mode: 0o600 });
  await chmod(path, 0o600);
  return { key, organization, path, created: state === 'unknown', revoked: state === 'revoked', preset: preset !== undefined };
}
