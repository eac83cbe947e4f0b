import {
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteItemCommand,
  DynamoDBClient,
  PutItemCommand,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMULATED_CREDENTIALS, EMULATED_REGION } from '../../emulator/awsClients.js';
import { startDynalite, type DynaliteServer } from '../../emulator/dynalite.js';
import { startDynamoDbFront } from '../../emulator/dynamoDbFront.js';
import { UsageMeter } from '../../emulator/usageMeter.js';

const TableName = 'jobs-like';

/**
 * A job-like item. Its entries, by DynamoDB's item-size rule (attribute names and values, 1 KB a
 * write unit, rounded up):
 * - by_function (INCLUDE status, data): id "job-1" 2+5, function_id "fn-1" 11+4, created_key
 *   "0001" 11+4, status "queued" 6+6, data 4+1500 = 1553 bytes, two units;
 * - queued (KEYS_ONLY): id 7, queued_shard "q1" 12+2, created_key 15 = 36 bytes, one unit.
 * The inputs (2006 bytes) are in neither.
 */
const item = (id: string): Record<string, AttributeValue> => ({
  id: { S: id },
  function_id: { S: 'fn-1' },
  created_key: { S: '0001' },
  status: { S: 'queued' },
  data: { S: 'd'.repeat(1500) },
  queued_shard: { S: 'q1' },
  inputs: { S: 'i'.repeat(2000) },
});

describe('the emulation counts what a write costs the table’s global secondary indexes, which dynalite does not report', () => {
  const meter = new UsageMeter();
  let dynalite: DynaliteServer;
  let front: { endpoint: string; close(): Promise<void> };
  let dynamoDb: DynamoDBClient;

  beforeAll(async () => {
    dynalite = await startDynalite();
    front = await startDynamoDbFront(dynalite.endpoint, {
      request: (operation) => meter.request('dynamodb', operation),
      capacity: (kind, units) => meter.capacity(kind, units),
    });
    dynamoDb = new DynamoDBClient({ region: EMULATED_REGION, credentials: EMULATED_CREDENTIALS, endpoint: front.endpoint, maxAttempts: 1 });
    const text = (AttributeName: string) => ({ AttributeName, AttributeType: 'S' as const });
    const keys = (hash: string, range: string) => [
      { AttributeName: hash, KeyType: 'HASH' as const },
      { AttributeName: range, KeyType: 'RANGE' as const },
    ];
    await dynamoDb.send(
      new CreateTableCommand({
        TableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: ['id', 'function_id', 'created_key', 'queued_shard'].map(text),
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        GlobalSecondaryIndexes: [
          {
            IndexName: 'by_function',
            KeySchema: keys('function_id', 'created_key'),
            Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['status', 'data'] },
          },
          { IndexName: 'queued', KeySchema: keys('queued_shard', 'created_key'), Projection: { ProjectionType: 'KEYS_ONLY' } },
        ],
      }),
    );
  }, 60_000);
  afterAll(async () => {
    dynamoDb.destroy();
    await front.close();
    await dynalite.close();
  });

  /** The index units, and all write units, `write` adds. */
  const cost = async (write: () => Promise<unknown>) => {
    const before = meter.usage().dynamoDb;
    await write();
    const after = meter.usage().dynamoDb;
    return { index: after.indexWriteUnits - before.indexWriteUnits, total: after.writeUnits - before.writeUnits };
  };
  const put = (id: string) => cost(() => dynamoDb.send(new PutItemCommand({ TableName, Item: item(id) })));
  const update = (id: string, UpdateExpression: string, values: Record<string, AttributeValue>, names?: Record<string, string>) =>
    cost(() =>
      dynamoDb.send(
        new UpdateItemCommand({ TableName, Key: { id: { S: id } }, UpdateExpression, ExpressionAttributeValues: values, ExpressionAttributeNames: names }),
      ),
    );

  it('a new item costs each index it enters a write of its entry’s size, on top of the table’s units', async () => {
    // Table: 7+15+15+12+1504+14+2006 = 3573 bytes, four units; indexes: 2 + 1.
    expect(await put('job-1')).toEqual({ index: 3, total: 4 + 3 });
  });

  it('an update that changes no projected attribute costs the indexes nothing', async () => {
    await put('job-2');
    expect((await update('job-2', 'SET inputs = :inputs', { ':inputs': { S: 'j'.repeat(2000) } })).index).toBe(0);
  });

  it('an update of a projected attribute rewrites the entries that hold it, in place', async () => {
    await put('job-3');
    // by_function holds status (its entry grows to 1554 bytes, still two units); queued does not.
    expect((await update('job-3', 'SET #status = :status', { ':status': { S: 'running' } }, { '#status': 'status' })).index).toBe(2);
  });

  it('an update that changes an index’s key costs it a delete of the old entry and a write of the new', async () => {
    await put('job-4');
    // by_function: delete 2 + write 2; leaving queued (its key removed): a delete of 1.
    expect((await update('job-4', 'SET function_id = :function REMOVE queued_shard', { ':function': { S: 'fn-2' } })).index).toBe(2 + 2 + 1);
  });

  it('a delete costs each index the delete of the item’s entry; a batch counts each of its items', async () => {
    await put('job-5');
    await put('job-6');
    expect((await cost(() => dynamoDb.send(new DeleteItemCommand({ TableName, Key: { id: { S: 'job-5' } } })))).index).toBe(2 + 1);
    const batch = { RequestItems: { [TableName]: [{ PutRequest: { Item: item('job-7') } }, { DeleteRequest: { Key: { id: { S: 'job-6' } } } }] } };
    expect((await cost(() => dynamoDb.send(new BatchWriteItemCommand(batch)))).index).toBe(3 + 3);
  });
});
