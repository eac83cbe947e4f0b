import type { DynamoDBDocumentClient, NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import type { Spiller } from './spill.js';
import { TABLES, tableName, type TableId } from './tables.js';

/** An item as the document client reads and writes it. */
export type Item = Record<string, NativeAttributeValue>;

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
