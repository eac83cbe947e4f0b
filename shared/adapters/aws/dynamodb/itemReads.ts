import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDbContext, Item } from './context.js';
import { collect, queryItems } from './pagedItems.js';

/** One item by its primary key, read consistently (it may have been written a moment ago). */
export async function getItem(context: DynamoDbContext, TableName: string, Key: Item): Promise<Item | null> {
  const { Item: item } = await context.client.send(new GetCommand({ TableName, Key, ConsistentRead: true }));
  return item ?? null;
}

/**
 * The item whose unique `attribute` (the partition key of `IndexName`) has this value.
 * Index reads are eventually consistent: a write may take a moment to show.
 */
export async function getItemByIndex(context: DynamoDbContext, TableName: string, IndexName: string, attribute: string, value: string): Promise<Item | null> {
  const [item] = await collect(
    queryItems(context, {
      TableName,
      IndexName,
      KeyConditionExpression: '#key = :value',
      ExpressionAttributeNames: { '#key': attribute },
      ExpressionAttributeValues: { ':value': value },
    }),
    { limit: 1 },
  );
  return item ?? null;
}
