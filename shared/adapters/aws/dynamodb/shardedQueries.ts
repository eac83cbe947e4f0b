import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { DynamoDbContext, Item } from './context.js';
import { queryItems } from './pagedItems.js';

/** The UTF-8 byte order DynamoDB sorts string keys in (JavaScript compares UTF-16 units). */
export function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * Merges streams each already sorted by `compare` into one stream sorted by it: the shards of
 * a sharded index read back in the order one unsharded index gives. Lazy: a stream is read only
 * as far as the merged items taken from it, so a caller that stops early stops every read.
 */
export async function* mergeSorted<T>(streams: AsyncIterable<T>[], compare: (a: T, b: T) => number): AsyncGenerator<T> {
  const iterators = streams.map((stream) => stream[Symbol.asyncIterator]());
  try {
    const heads = await Promise.all(iterators.map((iterator) => iterator.next()));
    for (;;) {
      let next = -1;
      heads.forEach((head, index) => {
        if (!head.done && (next < 0 || compare(head.value, (heads[next] as IteratorYieldResult<T>).value) < 0)) next = index;
      });
      if (next < 0) return;
      yield (heads[next] as IteratorYieldResult<T>).value;
      heads[next] = await (iterators[next] as AsyncIterator<T>).next();
    }
  } finally {
    await Promise.all(iterators.map((iterator) => iterator.return?.()));
  }
}

/** A query of one index over several partition keys: the shards of one stream. */
export interface ShardedQuery extends Omit<QueryCommandInput, 'KeyConditionExpression'> {
  /** The index's partition key attribute and its values to read (a stream's shards, or its one key). */
  partitionKey: { attribute: string; values: string[] };
  /** A condition on the sort key, after the partition key's: ` AND created_key < :before`. */
  sortCondition?: string;
}

/** One stream of items per partition key, each in the order its query reads. */
export function shardStreams(context: DynamoDbContext, query: ShardedQuery): AsyncGenerator<Item>[] {
  const { partitionKey, sortCondition = '', ...input } = query;
  return partitionKey.values.map((value) =>
    queryItems(context, {
      ...input,
      KeyConditionExpression: `${partitionKey.attribute} = :shard${sortCondition}`,
      ExpressionAttributeValues: { ...input.ExpressionAttributeValues, ':shard': value },
    }),
  );
}

/** The items of every partition key, merged by `compare` (the order each query reads in). */
export function queryShards(context: DynamoDbContext, query: ShardedQuery, compare: (a: Item, b: Item) => number): AsyncGenerator<Item> {
  return mergeSorted(shardStreams(context, query), compare);
}

/** Orders items by a string sort key attribute, as DynamoDB does. */
export const byKey =
  (attribute: string, direction: 'ascending' | 'descending' = 'ascending') =>
  (a: Item, b: Item) =>
    (direction === 'ascending' ? 1 : -1) * byteOrder(a[attribute] as string, b[attribute] as string);
