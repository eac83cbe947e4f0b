import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { writeIf } from './conditionalWrite.js';
import { tableNames, type DynamoDbContext } from './context.js';
import { organizationShardOf } from './jobItems.js';
import { pendingShardOf } from './pendingShards.js';
import { scanItems } from './pagedItems.js';
import { createSpiller } from './spill.js';

export interface ShardBackfill {
  jobs: number;
  deliveries: number;
}

/**
 * An upgrade's one pass over items written before the indexes were sharded: each job gets its
 * organization_shard (and, while queued or processing, its active_shard), each pending delivery
 * its pending_shard, so the new indexes hold them. Safe to run again, and beside a running
 * service: a job's active shard is set only while its status still is what was read, and a
 * delivery's only while it is still pending.
 */
export async function backfillShards(client: DynamoDBDocumentClient, tablePrefix: string): Promise<ShardBackfill> {
  const context: DynamoDbContext = { client, tables: tableNames(tablePrefix), spill: createSpiller(undefined) };
  const done: ShardBackfill = { jobs: 0, deliveries: 0 };
  const jobs = scanItems(context, {
    TableName: context.tables.jobs,
    FilterExpression: 'attribute_not_exists(organization_shard)',
    ProjectionExpression: 'id, organization_id, #status',
    ExpressionAttributeNames: { '#status': 'status' },
  });
  for await (const job of jobs) {
    const shard = organizationShardOf(job.organization_id as string, job.id as string);
    const update = (active: boolean) =>
      client.send(
        new UpdateCommand({
          TableName: context.tables.jobs,
          Key: { id: job.id },
          UpdateExpression: active ? 'SET organization_shard = :shard, active_shard = :shard' : 'SET organization_shard = :shard',
          ConditionExpression: active ? '#status IN (:queued, :processing)' : 'attribute_exists(id)',
          ExpressionAttributeValues: { ':shard': shard, ...(active ? { ':queued': 'queued', ':processing': 'processing' } : {}) },
          ...(active ? { ExpressionAttributeNames: { '#status': 'status' } } : {}),
        }),
      );
    const active = job.status === 'queued' || job.status === 'processing';
    // A job that ended since it was read gets its organization's shard alone.
    if (!(active && (await writeIf(() => update(true))))) await writeIf(() => update(false));
    done.jobs++;
  }
  const deliveries = scanItems(context, {
    TableName: context.tables.deliveries,
    FilterExpression: 'attribute_exists(pending_key) AND attribute_not_exists(pending_shard)',
    ProjectionExpression: 'id',
  });
  for await (const delivery of deliveries) {
    const set = await writeIf(() =>
      client.send(
        new UpdateCommand({
          TableName: context.tables.deliveries,
          Key: { id: delivery.id },
          UpdateExpression: 'SET pending_shard = :shard',
          ConditionExpression: '#state = :pending AND attribute_exists(pending_key)',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':shard': pendingShardOf(delivery.id as string), ':pending': 'pending' },
        }),
      ),
    );
    if (set) done.deliveries++;
  }
  return done;
}
