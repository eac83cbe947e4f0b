import { paginateQuery, paginateScan, type QueryCommandInput, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import type { DynamoDbContext, Item } from './context.js';

/**
 * Every item a query returns, following LastEvaluatedKey page after page. Pages are read
 * lazily: a caller that stops iterating stops the reads.
 */
export async function* queryItems(context: DynamoDbContext, input: QueryCommandInput): AsyncGenerator<Item> {
  for await (const page of paginateQuery({ client: context.client }, input)) yield* page.Items ?? [];
}

/** Every item a scan returns, page after page. */
export async function* scanItems(context: DynamoDbContext, input: ScanCommandInput): AsyncGenerator<Item> {
  for await (const page of paginateScan({ client: context.client }, input)) yield* page.Items ?? [];
}

export interface Window {
  offset?: number;
  limit?: number;
}

/** Skips `offset` items and collects up to `limit`: DynamoDB has no OFFSET, so paging reads past it. */
export async function collect<T>(items: AsyncIterable<T>, { offset = 0, limit = Infinity }: Window = {}): Promise<T[]> {
  const collected: T[] = [];
  if (limit <= 0) return collected;
  let skipped = 0;
  for await (const item of items) {
    if (skipped < offset) {
      skipped++;
      continue;
    }
    collected.push(item);
    if (collected.length >= limit) break;
  }
  return collected;
}

/**
 * A page size for a query that needs `offset + limit` items and filters none out, so a small
 * page reads no more than it must. Undefined (DynamoDB's 1 MB pages) when filtering.
 */
export function pageSizeFor({ offset = 0, limit = Infinity }: Window): number | undefined {
  const needed = offset + limit;
  return Number.isFinite(needed) && needed > 0 ? Math.min(needed, 1000) : undefined;
}
