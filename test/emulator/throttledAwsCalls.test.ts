import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EMULATED_CREDENTIALS, EMULATED_REGION } from '../../emulator/awsClients.js';
import { startAwsProxy } from '../../emulator/awsProxy.js';
import { startDynalite, type DynaliteServer } from '../../emulator/dynalite.js';
import { startDynamoDbFront } from '../../emulator/dynamoDbFront.js';
import { Faults } from '../../emulator/faults.js';
import { startMoto, type MotoServer } from '../../emulator/moto.js';
import { createTables } from '../../shared/adapters/aws/dynamodb/createTables.js';
import { createDocumentClient, createDynamoDbStore } from '../../shared/adapters/aws/dynamodb/dynamoDbStore.js';
import { createSystemClock } from '../../shared/adapters/systemClock.js';
import { KeyService } from '../../shared/services/keyService.js';

/**
 * The soak's AWS faults (emulator/faults.ts), answered at the fronts the product's clients talk to
 * (dynamoDbFront.ts, awsProxy.ts), seen through AWS SDK clients made as the product makes them:
 * default retries. Half the calls refused, every other draw: each first attempt is refused and
 * its retry goes through, so the product's call succeeds.
 */
describe('AWS calls throttled or failing in the emulation, as the SDK sees them', () => {
  let moto: MotoServer;
  let dynalite: DynaliteServer;
  const closers: (() => Promise<void>)[] = [];
  let draws = 0;
  // Refused, let through, refused, ...: with share 0.5, every first attempt is refused and its retry passes.
  const faults = new Faults({ random: () => (draws++ % 2 === 0 ? 0 : 0.99) });
  let keys: KeyService;
  let sqs: SQSClient;
  let s3: S3Client;
  let queueUrl = '';
  /** The attempts the SDK made for each DynamoDB call the store made. */
  const attempts: number[] = [];

  beforeAll(async () => {
    [moto, dynalite] = await Promise.all([startMoto(), startDynalite()]);
    const front = await startDynamoDbFront(dynalite.endpoint, { request: () => undefined, capacity: () => undefined }, () => faults.refuse('dynamodb'));
    const proxy = await startAwsProxy(
      moto.endpoint,
      () => undefined,
      (_target, _request, { service }) => faults.refuse(service),
    );
    closers.push(
      () => front.close(),
      () => proxy.close(),
      () => dynalite.close(),
      () => moto.close(),
    );
    await createTables(dynalite.client, 'spec-');
    const common = { region: EMULATED_REGION, credentials: EMULATED_CREDENTIALS };
    const dynamoDb = new DynamoDBClient({ ...common, endpoint: front.endpoint });
    dynamoDb.middlewareStack.add(
      (next) => async (args) => {
        const result = await next(args);
        attempts.push((result.output as { $metadata: { attempts?: number } }).$metadata.attempts ?? 1);
        return result;
      },
      { step: 'initialize' },
    );
    keys = new KeyService(createDynamoDbStore({ tablePrefix: 'spec-', client: createDocumentClient(dynamoDb) }), createSystemClock());
    sqs = new SQSClient({ ...common, endpoint: proxy.endpoint });
    s3 = new S3Client({ ...common, endpoint: proxy.endpoint, forcePathStyle: true });
    ({ QueueUrl: queueUrl = '' } = await sqs.send(new CreateQueueCommand({ QueueName: 'spec-queue' })));
    await s3.send(new CreateBucketCommand({ Bucket: 'spec-bucket' }));
  }, 60_000);
  afterAll(async () => {
    for (const close of closers) await close();
  });
  beforeEach(() => {
    draws = 0;
  });

  const failure = (call: Promise<unknown>) =>
    call.then(
      () => null,
      (error: Error) => error.name,
    );
  const sendMessage = () => sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'job' }));

  it('lets every call through when no fault is set, and counts nothing', async () => {
    await keys.createKey('calm');
    await sendMessage();
    await s3.send(new PutObjectCommand({ Bucket: 'spec-bucket', Key: 'calm', Body: 'x' }));
    expect(faults.counts()).toEqual({
      services: {
        dynamodb: { throttled: 0, failed: 0 },
        sqs: { throttled: 0, failed: 0 },
        s3: { throttled: 0, failed: 0 },
        states: { throttled: 0, failed: 0 },
      },
      lambdasKilled: 0,
      workerTasksKilled: 0,
    });
  });

  it('throttles DynamoDB as DynamoDB does: the store’s calls succeed on the SDK’s retries, and the refusals are counted', async () => {
    const before = faults.counts().services.dynamodb.throttled;
    faults.throttle('dynamodb', 60_000, 0.5);
    attempts.length = 0;
    const created = await keys.createKey('acme');
    expect((await keys.listKeys('acme')).map((key) => key.id)).toContain(created.key.id);
    expect(Math.min(...attempts)).toBeGreaterThan(1);
    expect(faults.counts().services.dynamodb.throttled - before).toBeGreaterThanOrEqual(attempts.length);
    faults.throttle('dynamodb', 0);
  });

  it('fails a DynamoDB call with the throttling error once the window outlasts the SDK’s retries, and lets calls through when it closes', async () => {
    const before = faults.counts().services.dynamodb.throttled;
    faults.throttle('dynamodb', 60_000, 1);
    expect(await failure(keys.createKey('throttled'))).toBe('ProvisionedThroughputExceededException');
    // Every attempt the SDK made (its default for DynamoDB: four) was refused.
    expect(faults.counts().services.dynamodb.throttled - before).toBeGreaterThanOrEqual(3);
    faults.throttle('dynamodb', 100, 1);
    await new Promise((resolve) => setTimeout(resolve, 150));
    await keys.createKey('throttled');
  });

  it('fails DynamoDB calls with its internal server error, counted as failed', async () => {
    faults.fail('dynamodb', 60_000, 1);
    expect(await failure(keys.createKey('failing'))).toBe('InternalServerError');
    expect(faults.counts().services.dynamodb.failed).toBeGreaterThanOrEqual(3);
    faults.fail('dynamodb', 0);
  });

  it('throttles SQS as SQS does: a send succeeds on the SDK’s retry, and fails with RequestThrottled once every attempt is refused', async () => {
    faults.throttle('sqs', 60_000, 0.5);
    expect((await sendMessage()).$metadata.attempts).toBe(2);
    expect(faults.counts().services.sqs.throttled).toBe(1);
    faults.throttle('sqs', 60_000, 1);
    expect(await failure(sendMessage())).toBe('RequestThrottled');
    expect(faults.counts().services.sqs.throttled).toBe(4);
    faults.fail('sqs', 60_000, 1);
    expect(await failure(sendMessage())).toBe('InternalFailure');
    expect(faults.counts().services.sqs.failed).toBe(3);
    faults.fail('sqs', 0);
  });

  it('answers S3 with 503 SlowDown while throttled, and a write succeeds on the SDK’s retry', async () => {
    faults.throttle('s3', 60_000, 0.5);
    expect((await s3.send(new PutObjectCommand({ Bucket: 'spec-bucket', Key: 'retried', Body: 'x' }))).$metadata.attempts).toBe(2);
    faults.throttle('s3', 60_000, 1);
    const error = await s3.send(new PutObjectCommand({ Bucket: 'spec-bucket', Key: 'refused', Body: 'x' })).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'SlowDown', $metadata: { httpStatusCode: 503 } });
    expect(faults.counts().services.s3.throttled).toBe(4);
    faults.throttle('s3', 0);
  });
});
