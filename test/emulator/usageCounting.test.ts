import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DynamoDBClient, GetItemCommand, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpFront } from '../../emulator/apiGateway.js';
import { EMULATED_CREDENTIALS, EMULATED_REGION } from '../../emulator/awsClients.js';
import { startAwsProxy } from '../../emulator/awsProxy.js';
import { startDynalite, type DynaliteServer } from '../../emulator/dynalite.js';
import { startDynamoDbFront } from '../../emulator/dynamoDbFront.js';
import { LambdaService } from '../../emulator/lambda/lambdaService.js';
import { UsageMeter } from '../../emulator/usageMeter.js';
import { startMotoServer, type MotoServer } from '../support/motoServer.js';

const HANDLER = `export const handler = async () => ({ statusCode: 200, body: 'ok' });\n`;

describe('the emulation counts the AWS usage a workload causes, in the units AWS bills', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-usage-'));
  const meter = new UsageMeter(dir);
  const closers: (() => Promise<void> | void)[] = [];
  let moto: MotoServer;
  let dynalite: DynaliteServer;
  let sqs: SQSClient;
  let s3: S3Client;
  let dynamoDb: DynamoDBClient;
  let lambdas: LambdaService;
  let apiUrl = '';

  beforeAll(async () => {
    moto = await startMotoServer();
    dynalite = await startDynalite();
    const proxy = await startAwsProxy(
      moto.endpoint,
      () => undefined,
      () => null,
      ({ service, operation }) => meter.request(service, operation),
    );
    const front = await startDynamoDbFront(dynalite.endpoint, {
      request: (operation) => meter.request('dynamodb', operation),
      capacity: (kind, units) => meter.capacity(kind, units),
    });
    const common = { region: EMULATED_REGION, credentials: EMULATED_CREDENTIALS, endpoint: proxy.endpoint };
    // As the product makes it: the endpoint from AWS_ENDPOINT_URL, so the SDK sends each call
    // on a queue to its QueueUrl's host.
    process.env.AWS_ENDPOINT_URL = proxy.endpoint;
    sqs = new SQSClient({ region: EMULATED_REGION, credentials: EMULATED_CREDENTIALS });
    s3 = new S3Client({ ...common, forcePathStyle: true });
    dynamoDb = new DynamoDBClient({ ...common, endpoint: front.endpoint, maxAttempts: 1 });
    writeFileSync(join(dir, 'fn.mjs'), HANDLER);
    lambdas = new LambdaService(
      { PATH: process.env.PATH ?? '' },
      () => join(dir, 'fn.log'),
      10,
      (spec, ms) => meter.invocation(spec.name, spec.memoryMb, ms),
    );
    lambdas.register({
      name: 'fn',
      arn: 'arn:aws:lambda:us-east-1:123456789012:function:fn',
      codeDir: dir,
      handler: 'fn.handler',
      environment: {},
      timeoutMs: 5000,
      memoryMb: 512,
      runtime: 'nodejs24.x',
    });
    const api = await startHttpFront(lambdas, [{ method: 'GET', path: '/hello', routeKey: 'GET /hello', functionName: 'fn' }], 0, '127.0.0.1', null, () =>
      meter.apiRequest(),
    );
    apiUrl = api.url;
    closers.push(
      () => proxy.close(),
      () => front.close(),
      () => lambdas.close(),
      () => new Promise<void>((done) => api.server.close(() => done())),
      () => moto.close(),
      () => dynalite.close(),
    );
  }, 60_000);
  afterAll(async () => {
    for (const close of closers) await close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts each request by service and operation, whatever its protocol (JSON, S3 REST), SQS calls sent to their queue URL too', async () => {
    const before = meter.usage().requests;
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'counted' }));
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'a' }));
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'b' }));
    await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
    await s3.send(new CreateBucketCommand({ Bucket: 'counted' }));
    await s3.send(new PutObjectCommand({ Bucket: 'counted', Key: 'a/b.txt', Body: 'x' }));
    await (await s3.send(new GetObjectCommand({ Bucket: 'counted', Key: 'a/b.txt' }))).Body?.transformToString();
    await s3.send(new ListObjectsV2Command({ Bucket: 'counted' }));
    expect(delta(before, meter.usage().requests)).toEqual({
      'sqs CreateQueue': 1,
      'sqs SendMessage': 2,
      'sqs ReceiveMessage': 1,
      's3 PUT bucket': 1,
      's3 PUT object': 1,
      's3 GET object': 1,
      's3 GET bucket': 1,
    });
  });

  it('counts DynamoDB requests and the capacity units they consume, leaving answers as the caller asked for them', async () => {
    await dynamoDb.send(
      new CreateTableCommand({
        TableName: 'items',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      }),
    );
    const before = meter.usage();
    // About 1.5 KB: two write units, one eventually consistent read of half a unit.
    await dynamoDb.send(new PutItemCommand({ TableName: 'items', Item: { id: { S: 'a' }, text: { S: 'x'.repeat(1500) } } }));
    const quiet = await dynamoDb.send(new GetItemCommand({ TableName: 'items', Key: { id: { S: 'a' } } }));
    const asked = await dynamoDb.send(
      new GetItemCommand({ TableName: 'items', Key: { id: { S: 'a' } }, ConsistentRead: true, ReturnConsumedCapacity: 'TOTAL' }),
    );
    // A query that finds nothing still costs DynamoDB's minimum: half a unit, eventually consistent.
    await dynamoDb.send(new QueryCommand({ TableName: 'items', KeyConditionExpression: 'id = :id', ExpressionAttributeValues: { ':id': { S: 'none' } } }));
    const after = meter.usage();
    expect(delta(before.requests, after.requests)).toEqual({ 'dynamodb PutItem': 1, 'dynamodb GetItem': 2, 'dynamodb Query': 1 });
    expect(after.dynamoDb.writeUnits - before.dynamoDb.writeUnits).toBe(2);
    expect(after.dynamoDb.readUnits - before.dynamoDb.readUnits).toBe(0.5 + 1 + 0.5);
    expect(quiet.ConsumedCapacity).toBeUndefined();
    expect(quiet.Item?.text?.S).toHaveLength(1500);
    expect(asked.ConsumedCapacity?.CapacityUnits).toBe(1);
  });

  it('counts API Gateway requests and Lambda invocations with their GB-seconds at the function’s memory', async () => {
    const before = meter.usage();
    for (let i = 0; i < 3; i++) expect(await (await fetch(`${apiUrl}/hello`)).text()).toBe('ok');
    const after = meter.usage();
    expect(after.apiRequests - before.apiRequests).toBe(3);
    const invoked = after.lambda.fn;
    expect(invoked?.invocations).toBe(3);
    // 512 MB: half a GB-second a second, each invocation rounded up to the millisecond.
    expect(invoked?.gbSeconds).toBeGreaterThanOrEqual(3 * 0.0005);
    expect(invoked?.gbSeconds).toBeLessThan(3 * 0.5 * 5);
    expect(after.logBytes).toBeGreaterThanOrEqual(0);
  });
});

function delta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(after).flatMap(([key, count]) => (count === (before[key] ?? 0) ? [] : [[key, count - (before[key] ?? 0)]])));
}
