import type { Store } from '../../../ports/store.js';
import { sqliteApiKeyStore } from './apiKeyStore.js';
import { openDatabase } from './database.js';
import { sqliteFunctionStore } from './functionStore.js';
import { sqliteLogStore } from './logStore.js';
import { sqliteOrganizationStore } from './organizationStore.js';
import { sqliteVersionStore } from './versionStore.js';

/** The local mode's store: one SQLite file (or `:memory:`). */
export function createSqliteStore(path: string): Store {
  const db = openDatabase(path);
  return {
    organizations: sqliteOrganizationStore(db),
    apiKeys: sqliteApiKeyStore(db),
    functions: sqliteFunctionStore(db),
    versions: sqliteVersionStore(db),
    logs: sqliteLogStore(db),
    async close() {
      db.close();
    },
  };
}
