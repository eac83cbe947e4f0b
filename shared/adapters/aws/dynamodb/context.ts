import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Spiller } from './spill.js';
import { TABLES, tableName, type TableId } from './tables.js';

export type { Item } from './item.js';

/** What every sub-store needs: the client, the deployment's table names, and where text too large for an item goes. */
export interface DynamoDbContext {
  client: DynamoDBDocumentClient;
  tables: Record<TableId, string>;
  spill: Spiller;
}

export function tableNames(tablePrefix: string): Record<TableId, string> {
  const entries = Object.entries(TABLES).map(([id, table]) => [id, tableName(tablePrefix, table)]);
  return Object.fromEntries(entries) as Record<TableId, string>;
}
