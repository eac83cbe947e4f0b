import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createDynamoDbStore } from '../adapters/aws/dynamodb/dynamoDbStore.js';
import { createSqliteStore, type SqliteStore } from '../adapters/local/sqlite/sqliteStore.js';
import type { Config } from '../config.js';
import type { Store } from '../ports/store.js';

/** Where the local mode keeps its SQLite database. */
export const sqliteStorePath = (dataDir: string) => join(dataDir, 'sluice.db');

/** The store the configuration names: the local data directory's SQLite file, or the DynamoDB tables. */
export function openStore(config: Config): Store {
  if (config.mode === 'aws') return createDynamoDbStore({ tablePrefix: config.tablePrefix });
  return openLocalStore(config);
}

/** The local mode's store: the data directory's SQLite file. */
export function openLocalStore(config: Config, onCheckpointError?: (error: unknown) => void): SqliteStore {
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  return createSqliteStore(sqliteStorePath(config.dataDir), onCheckpointError);
}
