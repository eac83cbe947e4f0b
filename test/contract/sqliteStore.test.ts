import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import { describeStoreContract } from './storeContract.js';

describeStoreContract('SQLite', async () => {
  const store = createSqliteStore(':memory:');
  return { store, cleanup: () => store.close() };
});
