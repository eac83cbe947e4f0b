import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { PAGE_END_KEPT_S } from '../../../domain/listOffsets.js';
import type { PageEndStore } from '../../../ports/pageEnds.js';
import type { DynamoDbContext } from './context.js';
import { getItem } from './itemReads.js';

/**
 * Page ends in DynamoDB: one item per offset handed out (a list's API Lambdas share no memory),
 * deleted by time to live. DynamoDB deletes expired items within a day or two, so a read checks
 * `ttl` itself.
 */
export function dynamoDbPageEndStore(context: DynamoDbContext, now: () => number = Date.now): PageEndStore {
  const TableName = context.tables.pageEnds;
  const nowSeconds = () => Math.floor(now() / 1000);
  return {
    async find(list, offset, maxAgeS) {
      const item = await getItem(context, TableName, { list, offset });
      if (!item || (item.ttl as number) - PAGE_END_KEPT_S + maxAgeS < nowSeconds()) return undefined;
      return { createdAt: item.created_at as number, id: item.job_id as string };
    },
    async remember(list, offset, after) {
      await context.client.send(
        new PutCommand({ TableName, Item: { list, offset, created_at: after.createdAt, job_id: after.id, ttl: nowSeconds() + PAGE_END_KEPT_S } }),
      );
    },
    async nearest(list, offset) {
      const answer = await context.client.send(
        new QueryCommand({
          TableName,
          KeyConditionExpression: '#list = :list AND #offset < :offset',
          FilterExpression: '#ttl >= :now',
          // LIST and TTL are reserved words.
          ExpressionAttributeNames: { '#list': 'list', '#offset': 'offset', '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':list': list, ':offset': offset, ':now': nowSeconds() },
          ScanIndexForward: false,
          // A filtered page may hold only expired ends: a few pages' worth is enough for a hint.
          Limit: 20,
        }),
      );
      const found = answer.Items?.[0]?.offset;
      return typeof found === 'number' ? found : undefined;
    },
  };
}
