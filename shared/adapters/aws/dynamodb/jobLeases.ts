import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { JobLeases } from '../jobLeases.js';
import { tableNames } from './context.js';
import { writeIf } from './conditionalWrite.js';

/**
 * A running job's lease as an attribute of its item (`lease_until`, epoch milliseconds). It is
 * written only for a job that outlives its SQS message's visibility (12 hours), about once a
 * heartbeat, so ordinary jobs cost no extra write.
 */
export function dynamoDbJobLeases(client: DynamoDBDocumentClient, tablePrefix: string): JobLeases {
  const TableName = tableNames(tablePrefix).jobs;
  return {
    async renew(jobId, untilMs) {
      await writeIf(() =>
        client.send(
          new UpdateCommand({
            TableName,
            Key: { id: jobId },
            UpdateExpression: 'SET lease_until = :until',
            ConditionExpression: 'attribute_exists(id)',
            ExpressionAttributeValues: { ':until': untilMs },
          }),
        ),
      );
    },
    async expiresAt(jobId) {
      const { Item } = await client.send(new GetCommand({ TableName, Key: { id: jobId }, ConsistentRead: true, ProjectionExpression: 'lease_until' }));
      return typeof Item?.lease_until === 'number' ? Item.lease_until : null;
    },
  };
}
