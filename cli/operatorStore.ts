import type { Store } from '../shared/ports/store.js';
import { openKeysStore } from './openKeysStore.js';
import { readUserConfig } from './settings/userConfig.js';

/**
 * Runs an operator's command (`sluice keys`, `sluice orgs`) on the store itself, closed after.
 * The data directory is `dataDir` (--data-dir), else SLUICE_DATA_DIR, else the one `sluice start`
 * last saved in the user config, else ./.data; which store that opens: cli/openKeysStore.ts.
 * `mayCreate`: a missing store may be made, only in a data directory named outright.
 */
export async function withOperatorStore(dataDir: string | undefined, mayCreate: boolean, work: (store: Store) => Promise<void>): Promise<void> {
  // The store and its drivers load only for these commands: every other one starts faster.
  const { loadConfig } = await import('../shared/config.js');
  const saved = process.env.SLUICE_DATA_DIR === undefined ? (await readUserConfig()).dataDir : undefined;
  const chosen = dataDir ?? saved;
  const config = loadConfig(chosen === undefined ? process.env : { ...process.env, SLUICE_DATA_DIR: chosen });
  const named = dataDir !== undefined || process.env.SLUICE_DATA_DIR !== undefined;
  const opened = await openKeysStore(config, mayCreate && named, process.argv.slice(2));
  try {
    await work(opened);
  } finally {
    await opened.close();
  }
}
