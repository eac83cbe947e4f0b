import { CreateTableCommand, waitUntilTableExists, type CreateTableCommandInput, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { TABLES, tableName, type IndexProjection, type KeyAttribute, type TableDefinition } from './tables.js';

const keySchema = (partitionKey: KeyAttribute, sortKey?: KeyAttribute) => [
  { AttributeName: partitionKey.name, KeyType: 'HASH' as const },
  ...(sortKey ? [{ AttributeName: sortKey.name, KeyType: 'RANGE' as const }] : []),
];

const projection = (projected: IndexProjection) =>
  projected.type === 'KEYS_ONLY'
    ? { ProjectionType: 'KEYS_ONLY' as const }
    : { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...projected.attributes] };

/** Every key attribute of the table and its indexes, each once. */
function attributeDefinitions(table: TableDefinition) {
  const keys = [table.partitionKey, table.sortKey, ...table.globalSecondaryIndexes.flatMap((index) => [index.partitionKey, index.sortKey])];
  const byName = new Map(keys.filter((key) => key !== undefined).map((key) => [key.name, key.type]));
  return [...byName].map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType }));
}

/** The CreateTable request for a table definition (TTL is set apart, by UpdateTimeToLive). */
export function createTableInput(tablePrefix: string, table: TableDefinition): CreateTableCommandInput {
  return {
    TableName: tableName(tablePrefix, table),
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema: keySchema(table.partitionKey, table.sortKey),
    AttributeDefinitions: attributeDefinitions(table),
    // DynamoDB refuses an empty list of indexes: leave it out instead.
    GlobalSecondaryIndexes:
      table.globalSecondaryIndexes.length === 0
        ? undefined
        : table.globalSecondaryIndexes.map((index) => ({
            IndexName: index.indexName,
            KeySchema: keySchema(index.partitionKey, index.sortKey),
            Projection: projection(index.projection),
          })),
  };
}

/**
 * Creates every table and waits until each is active: for tests on dynalite and for a
 * development database. Deployed tables come from the CDK data stack instead.
 */
export async function createTables(client: DynamoDBClient, tablePrefix: string): Promise<void> {
  await Promise.all(
    Object.values(TABLES).map(async (table) => {
      const input = createTableInput(tablePrefix, table);
      await client.send(new CreateTableCommand(input));
      await waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 1, maxDelay: 2 }, { TableName: input.TableName });
    }),
  );
}
