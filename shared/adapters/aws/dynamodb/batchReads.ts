import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDbContext, Item } from './context.js';

/** BatchGetItem takes at most this many keys a call. */
const BATCH_SIZE = 100;

/**
 * The items of these keys, in the keys' order, read consistently; a key with no item is left
 * out. What a keys-only index found is read whole this way: each item costs its own size in
 * read units, so it pays where few items are read and their index entries are often rewritten.
 */
export async function getItems(context: DynamoDbContext, TableName: string, keys: Item[], keyNames: readonly string[]): Promise<Item[]> {
  const keyOf = (item: Item) => JSON.stringify(keyNames.map((name) => item[name]));
  const found = new Map<string, Item>();
  for (let start = 0; start < keys.length; start += BATCH_SIZE) {
    const chunk = new Map(keys.slice(start, start + BATCH_SIZE).map((key) => [keyOf(key), Object.fromEntries(keyNames.map((name) => [name, key[name]]))]));
    let pending: Item[] = [...chunk.values()];
    // An answer past 16 MB (or a throttled read) leaves keys unprocessed: they are asked again, after a pause.
    for (let retry = 0; pending.length > 0; retry++) {
      if (retry > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 25 * 2 ** retry)));
      const { Responses, UnprocessedKeys } = await context.client.send(
        new BatchGetCommand({ RequestItems: { [TableName]: { Keys: pending, ConsistentRead: true } } }),
      );
      for (const item of Responses?.[TableName] ?? []) found.set(keyOf(item), item);
      pending = UnprocessedKeys?.[TableName]?.Keys ?? [];
    }
  }
  return keys.map((key) => found.get(keyOf(key))).filter((item) => item !== undefined);
}
