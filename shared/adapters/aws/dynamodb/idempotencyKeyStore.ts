import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { IdempotencyRecord } from '../../../domain/idempotency.js';
import type { IdempotencyKeyStore } from '../../../ports/store.js';
import { writeIf } from './conditionalWrite.js';
import type { DynamoDbContext, Item } from './context.js';
import { getItem } from './itemReads.js';

const toItem = (record: IdempotencyRecord): Item => ({
  organization_id: record.organizationId,
  key: record.key,
  request_hash: record.requestHash,
  job_id: record.jobId,
  created_at: record.createdAt,
  expires_at: record.expiresAt,
  // DynamoDB's time to live is in epoch seconds.
  ttl: Math.ceil(record.expiresAt / 1_000_000),
});

const toRecord = (item: Item): IdempotencyRecord => ({
  organizationId: item.organization_id as string,
  key: item.key as string,
  requestHash: item.request_hash as string,
  jobId: item.job_id as string,
  createdAt: item.created_at as number,
  expiresAt: item.expires_at as number,
});

export function dynamoDbIdempotencyKeyStore(context: DynamoDbContext): IdempotencyKeyStore {
  const TableName = context.tables.idempotencyKeys;
  const names = { '#key': 'key' };
  return {
    async claim(record) {
      // Free, or held by an expired record that time to live has not deleted yet.
      const claimed = await writeIf(() =>
        context.client.send(
          new PutCommand({
            TableName,
            Item: toItem(record),
            ConditionExpression: 'attribute_not_exists(#key) OR expires_at <= :now',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ':now': record.createdAt },
          }),
        ),
      );
      if (claimed) return record;
      const held = await getItem(context, TableName, { organization_id: record.organizationId, key: record.key });
      // Released between the put and the read: claim it again.
      return held ? toRecord(held) : this.claim(record);
    },
    async release(organizationId, key, jobId) {
      await writeIf(() =>
        context.client.send(
          new DeleteCommand({
            TableName,
            Key: { organization_id: organizationId, key },
            ConditionExpression: 'job_id = :job',
            ExpressionAttributeValues: { ':job': jobId },
          }),
        ),
      );
    },
  };
}
