import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DynamoDbContext, Item } from './context.js';

/** BatchWriteItem takes at most 25 requests. */
const BATCH_SIZE = 25;
const MAX_ATTEMPTS = 8;
const FIRST_BACKOFF_MS = 25;

/**
 * Puts the items 25 at a time. DynamoDB may leave some unprocessed when it throttles: those
 * are sent again after an exponential backoff, and an error is thrown if they never go through.
 */
export async function batchPut(context: DynamoDbContext, TableName: string, items: Item[]): Promise<void> {
  for (let start = 0; start < items.length; start += BATCH_SIZE) {
    let requests = items.slice(start, start + BATCH_SIZE).map((item) => ({ PutRequest: { Item: item } }));
    for (let attempt = 1; requests.length > 0; attempt++) {
      if (attempt > MAX_ATTEMPTS) throw new Error(`${requests.length} writes to ${TableName} stayed unprocessed after ${MAX_ATTEMPTS} attempts`);
      if (attempt > 1) await sleep(FIRST_BACKOFF_MS * 2 ** (attempt - 2) * (0.5 + Math.random()));
      const { UnprocessedItems } = await context.client.send(new BatchWriteCommand({ RequestItems: { [TableName]: requests } }));
      requests = (UnprocessedItems?.[TableName] ?? []).flatMap((request) =>
        request.PutRequest?.Item ? [{ PutRequest: { Item: request.PutRequest.Item } }] : [],
      );
    }
  }
}
