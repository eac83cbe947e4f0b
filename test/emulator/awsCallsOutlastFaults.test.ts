import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EMULATED_CREDENTIALS, EMULATED_REGION } from '../../emulator/awsClients.js';
import { Faults } from '../../emulator/faults.js';
import { awsRetries } from '../../shared/adapters/aws/awsRetries.js';
import { createTables } from '../../shared/adapters/aws/dynamodb/createTables.js';
import { createDocumentClient, createDynamoDbStore } from '../../shared/adapters/aws/dynamodb/dynamoDbStore.js';
import type { UsageIncrement } from '../../shared/domain/usage.js';
import type { Store } from '../../shared/ports/store.js';
import { startFaultyAwsFronts } from '../support/faultyAwsFronts.js';

const HOUR = 1_700_000_000 - (1_700_000_000 % 3600);
const usage = (computeSeconds: number): UsageIncrement => ({
  organizationId: 'org-1',
  functionId: 'fn-1',
  versionId: 'v-1',
  billingClass: 'cpu',
  hour: HOUR,
  computeSeconds,
  costDollars: computeSeconds / 100,
});

/**
 * The product's AWS clients (their retries: shared/adapters/aws/awsRetries.ts) against the
 * soak's faults (emulator/faults.ts) at the emulation's fronts: a run of refusals longer than the
 * SDK's default three attempts no longer loses the write, and a retried usage write bills once.
 */
describe('AWS calls refused for a while, as the product’s clients retry them', () => {
  let fronts: Awaited<ReturnType<typeof startFaultyAwsFronts>> | undefined;
  /** Whether the open window refuses each of the next calls (true) or lets it through; then all pass. */
  let plan: boolean[] = [];
  const refuseNext = (count: number) => plan.push(...Array<boolean>(count).fill(true));
  const faults = new Faults({ random: () => (plan.shift() ? 0 : 0.99) });
  let store: Store;
  let sqs: SQSClient;
  let queueUrl = '';
  /** Answers lost once, after DynamoDB applied the write: the next write that matches. */
  let loseAnswerOf: ((input: Record<string, unknown>) => boolean) | null = null;

  beforeAll(async () => {
    fronts = await startFaultyAwsFronts(faults);
    await createTables(fronts.dynalite, 'spec-');
    const common = { region: EMULATED_REGION, credentials: EMULATED_CREDENTIALS };
    const dynamoDb = new DynamoDBClient({ ...common, endpoint: fronts.dynamoDbEndpoint, ...awsRetries() });
    // Inside the SDK's retries: the write lands, then its answer is lost as a 500 would lose it.
    dynamoDb.middlewareStack.add(
      (next) => async (args) => {
        const result = await next(args);
        if (loseAnswerOf?.(args.input as Record<string, unknown>)) {
          loseAnswerOf = null;
          throw Object.assign(new Error('Internal server error'), { name: 'InternalServerError', $fault: 'server', $metadata: { httpStatusCode: 500 } });
        }
        return result;
      },
      { step: 'deserialize', name: 'loseAnswer' },
    );
    store = createDynamoDbStore({ tablePrefix: 'spec-', client: createDocumentClient(dynamoDb) });
    sqs = new SQSClient({ ...common, endpoint: fronts.awsEndpoint, ...awsRetries() });
    ({ QueueUrl: queueUrl = '' } = await sqs.send(new CreateQueueCommand({ QueueName: 'spec-queue' })));
  }, 60_000);
  afterAll(async () => {
    await fronts?.close();
  });
  beforeEach(() => {
    plan = [];
    loseAnswerOf = null;
  });

  const billed = async () => (await store.usage.totals({ organizationId: 'org-1', fromHour: HOUR, toHour: HOUR + 3600 })).get('cpu')?.computeSeconds ?? 0;

  it('counts a job’s usage once when DynamoDB answered its first six calls with 500s', async () => {
    const before = await billed();
    faults.fail('dynamodb', 60_000, 0.5);
    refuseNext(6);
    expect(await store.usage.recordJob('job-refused', usage(7))).toBe(true);
    faults.fail('dynamodb', 0);
    expect(plan).toEqual([]);
    expect((await billed()) - before).toBe(7);
  }, 60_000);

  it('sends a job’s message that SQS throttled four times in a row', async () => {
    faults.throttle('sqs', 60_000, 0.5);
    refuseNext(4);
    const sent = await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'job' }));
    faults.throttle('sqs', 0);
    expect(sent.$metadata.attempts).toBe(5);
  }, 60_000);

  it('counts a job’s usage on a later record when its write was refused past every retry', async () => {
    const before = await billed();
    faults.fail('dynamodb', 60_000, 0.5);
    // The marker and the add, one transaction, refused at each of its ten attempts.
    refuseNext(10);
    await expect(store.usage.recordJob('job-add-refused', usage(3))).rejects.toThrow('Internal server error');
    faults.fail('dynamodb', 0);
    expect(await billed()).toBe(before);
    expect(await store.usage.recordJob('job-add-refused', usage(3))).toBe(true);
    expect((await billed()) - before).toBe(3);
  }, 60_000);

  it('bills a job once when the answer to its usage write was lost after the write landed', async () => {
    const before = await billed();
    loseAnswerOf = (input) => Array.isArray(input.TransactItems);
    // The SDK's retry carries the ClientRequestToken the SDK gave the call: DynamoDB answers it as the write that landed.
    expect(await store.usage.recordJob('job-answer-lost', usage(5))).toBe(true);
    expect(loseAnswerOf).toBeNull();
    expect((await billed()) - before).toBe(5);
    expect(await store.usage.recordJob('job-answer-lost', usage(5))).toBe(false);
    expect((await billed()) - before).toBe(5);
  }, 60_000);
});
