import { randomUUID } from 'node:crypto';
import { CreateBucketCommand, DeleteObjectsCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTables } from '../../shared/adapters/aws/dynamodb/createTables.js';
import { createDocumentClient, createDynamoDbStore, type DynamoDbStoreOptions } from '../../shared/adapters/aws/dynamodb/dynamoDbStore.js';
import { createS3Spill } from '../../shared/adapters/aws/s3Spill.js';
import { aJob, aLogEntry, anIncrement, anOutput } from '../support/fixtures.js';
import { startMotoServer, type MotoServer } from '../support/motoServer.js';
import { startDynalite } from './dynaliteServer.js';
import { describeStoreContract } from './storeContract.js';

const tablePrefix = 'test-';

/** S3 for the spill: one moto_server for the file, a fresh bucket for each store. */
let moto: MotoServer | undefined;
let s3: S3Client | undefined;
beforeAll(async () => {
  moto = await startMotoServer();
  s3 = moto.s3();
}, 60_000);
afterAll(async () => {
  await moto?.close();
});

async function aSpillBucket() {
  if (!s3) throw new Error('moto_server is not started');
  const bucket = `spill-${randomUUID()}`;
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  return { bucket, spill: createS3Spill({ client: s3, bucket }) };
}

/** A DynamoDB store on its own dynalite, its tables made from tables.ts, spilling to its own bucket. */
async function startDynamoDbStore(options: Partial<DynamoDbStoreOptions> = {}) {
  const dynalite = await startDynalite();
  await createTables(dynalite.client, tablePrefix);
  const client = createDocumentClient(dynalite.client);
  const { bucket, spill } = await aSpillBucket();
  const store = createDynamoDbStore({ client, tablePrefix, spill, ...options });
  const requests: string[] = [];
  // Records each request's command, to see how many pages a read took.
  client.middlewareStack.add(
    (next, context) => (args) => {
      requests.push(context.commandName ?? '');
      return next(args);
    },
    { step: 'initialize' },
  );
  return {
    store,
    client,
    bucket,
    requests,
    async cleanup() {
      await store.close();
      await dynalite.close();
    },
  };
}

describeStoreContract('DynamoDB (dynalite)', () => startDynamoDbStore());

describe('DynamoDB store', () => {
  let running: Awaited<ReturnType<typeof startDynamoDbStore>> | undefined;
  const start = async (options?: Partial<DynamoDbStoreOptions>) => (running = await startDynamoDbStore(options));
  afterEach(async () => {
    await running?.cleanup();
    running = undefined;
  });

  it('reads a query longer than one 1 MB page by following LastEvaluatedKey', async () => {
    const { store, requests } = await start();
    const lines = Array.from({ length: 14 }, (_, index) => aLogEntry({ timeNs: BigInt(index), message: 'x'.repeat(90_000) }));
    await store.logs.append(lines);
    requests.length = 0;
    const found = await store.logs.query({ stream: 'job:job-1', organizationId: 'org-1', startNs: 0n, endNs: 100n, limit: 100 });
    expect(found).toHaveLength(14);
    expect(requests.filter((name) => name === 'QueryCommand').length).toBeGreaterThan(1);
  });

  it('marks each log line to expire after the retention period', async () => {
    const { store, client } = await start({ logRetentionDays: 7, now: () => 1_700_000_000_500 });
    await store.logs.append([aLogEntry()]);
    const { Items } = await client.send(new ScanCommand({ TableName: `${tablePrefix}logs` }));
    expect(Items?.map((item) => item.expires_at)).toEqual([1_700_000_000 + 7 * 86_400]);
  });

  it('cuts a log line too long for one item instead of failing its batch', async () => {
    const { store } = await start();
    await store.logs.append([aLogEntry({ timeNs: 1n, message: 'é'.repeat(300_000) }), aLogEntry({ timeNs: 2n, message: 'next' })]);
    const found = await store.logs.query({ organizationId: 'org-1', startNs: 0n, endNs: 10n, limit: 10 });
    expect(found.map((entry) => entry.message.length)).toEqual([100_000, 4]);
  });

  it('keeps a job input too large for an item under spill/<job id>/ in S3, and a small one in the item', async () => {
    const { store, client, bucket } = await start();
    const large = aJob({ inputs: { image: 'x'.repeat(400_000) } });
    const small = aJob();
    await store.jobs.create(large);
    await store.jobs.create(small);
    const { Items } = await client.send(new ScanCommand({ TableName: `${tablePrefix}jobs` }));
    const itemOf = (id: string) => Items?.find((item) => item.id === id);
    expect(itemOf(large.id)?.inputs).toBeUndefined();
    expect(itemOf(large.id)?.inputs_spill).toMatch(new RegExp(`^spill/${large.id}/inputs-`));
    expect(itemOf(large.id)?.inputs_preview).toBe('{"image":null}');
    expect(itemOf(small.id)?.inputs_spill).toBeUndefined();
    expect(await spilledKeys(bucket)).toEqual([itemOf(large.id)?.inputs_spill]);
  });

  it('lists never read the spill: with every spilled copy gone, lists of jobs and outputs still answer', async () => {
    const { store, bucket } = await start();
    const job = aJob({ inputs: { image: 'x'.repeat(400_000), note: 'small' } });
    await store.jobs.create(job);
    await store.jobs.appendOutput(anOutput({ jobId: job.id, index: 0, data: 'a'.repeat(400_000) }));
    await store.jobs.appendOutput(anOutput({ jobId: job.id, index: 1, data: 'small' }));
    const keys = await spilledKeys(bucket);
    expect(keys).toHaveLength(2);
    await s3!.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys.map((Key) => ({ Key })) } }));
    await expect(store.jobs.get(job.id)).rejects.toThrow(); // the spill is what get reads
    expect((await store.jobs.listByOrganization({ organizationId: 'org-1' }, { limit: 10, offset: 0 })).map((listed) => listed.inputs)).toEqual([
      { image: null, note: 'small' },
    ]);
    const outputs = await store.jobs.listOutputPreviews(job.id, { budget: 1_000_000, max: 10 });
    expect(outputs.map((output) => [output.data, output.omitted])).toEqual([
      [null, true],
      ['small', false],
    ]);
  });

  it('removes the spilled copy of a large output whose repeat was refused', async () => {
    const { store, bucket } = await start();
    await store.jobs.appendOutput(anOutput({ index: 0, data: 'a'.repeat(400_000) }));
    await store.jobs.appendOutput(anOutput({ index: 0, runId: 'run-2', data: 'b'.repeat(400_000) }));
    expect(await spilledKeys(bucket)).toHaveLength(1);
  });

  it('without a spill, refuses an item past 400 KB as DynamoDB does', async () => {
    const { store } = await start({ spill: undefined });
    await expect(store.jobs.create(aJob({ inputs: { image: 'x'.repeat(500_000) } }))).rejects.toThrow(/size/);
  });

  describe("a job's usage under DynamoDB's failures", () => {
    const day = { organizationId: 'org-1', fromHour: anIncrement().hour, toHour: anIncrement().hour + 3600 };
    const seconds = async () => (await running?.store.usage.totals(day))?.get('a100')?.computeSeconds;
    /** Every call from the `from`-th on fails as DynamoDB's InternalServerError does, until `ends()`. */
    const anOutage = (client: { middlewareStack: any }, from: number, landing = false) => {
      let calls = 0;
      let on = true;
      client.middlewareStack.add(
        (next: (args: unknown) => Promise<unknown>) => async (args: unknown) => {
          calls += 1;
          if (!on || calls < from) return next(args);
          // `landing`: the call is made, and its answer lost.
          if (landing) await next(args);
          throw Object.assign(new Error('Internal server error'), { name: 'InternalServerError', $fault: 'server' });
        },
        { step: 'initialize' },
      );
      return { ends: () => (on = false) };
    };

    it.each([1, 2, 3])('an outage from the call %i on leaves it to be counted, once, by the next record', async (from) => {
      const { store, client } = await start();
      const outage = anOutage(client, from);
      await store.usage.recordJob('job-1', anIncrement({ computeSeconds: 60 })).catch(() => undefined);
      outage.ends();
      await store.usage.recordJob('job-1', anIncrement({ computeSeconds: 60 }));
      await store.usage.recordJob('job-1', anIncrement({ computeSeconds: 60 }));
      expect(await seconds()).toBe(60);
    });

    it("is tried again when DynamoDB cancels it for a conflict with another job's transaction on the same hour", async () => {
      const { store, client } = await start();
      let refused = 0;
      (client.middlewareStack as { add: (...args: any[]) => void }).add(
        (next: (args: unknown) => Promise<unknown>) => async (args: unknown) => {
          if (refused >= 4) return next(args);
          refused += 1;
          // As DynamoDB answers a transaction, then a plain write, that overlaps another transaction.
          if (refused % 2 === 1)
            throw new TransactionCanceledException({
              message: 'Transaction cancelled [None, TransactionConflict]',
              $metadata: {},
              CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }],
            });
          throw Object.assign(new Error('Transaction is ongoing for the item'), { name: 'TransactionConflictException' });
        },
        { step: 'initialize' },
      );
      expect(await store.usage.recordJob('job-1', anIncrement({ computeSeconds: 60 }))).toBe(true);
      await store.usage.add(anIncrement({ computeSeconds: 5 }));
      expect(refused).toBe(4);
      expect(await seconds()).toBe(65);
    });

    it.each([1, 2])('a call made and its answer lost (from the call %i on) counts it once, and a record again changes nothing', async (from) => {
      const { store, client } = await start();
      const outage = anOutage(client, from, true);
      await store.usage.recordJob('job-1', anIncrement({ computeSeconds: 60 })).catch(() => undefined);
      outage.ends();
      await store.usage.recordJob('job-1', anIncrement({ computeSeconds: 60 }));
      expect(await seconds()).toBe(60);
    });
  });
});

async function spilledKeys(bucket: string): Promise<string[]> {
  const { Contents } = await s3!.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'spill/' }));
  return (Contents ?? []).map((object) => object.Key ?? '');
}
