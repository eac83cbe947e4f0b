import { DescribeTableCommand, ScanCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTables } from '../../shared/adapters/aws/dynamodb/createTables.js';
import { createDocumentClient, createDynamoDbStore } from '../../shared/adapters/aws/dynamodb/dynamoDbStore.js';
import { backfillShards } from '../../shared/adapters/aws/dynamodb/shardBackfill.js';
import { TABLES, tableName } from '../../shared/adapters/aws/dynamodb/tables.js';
import type { Store } from '../../shared/ports/store.js';
import { aDelivery, aJob } from '../support/fixtures.js';
import { indexWriteUnits, type RawItem } from '../../emulator/indexWriteUnits.js';
import { startDynalite, type DynaliteServer } from './dynaliteServer.js';

const tablePrefix = 'test-';

describe('the DynamoDB tables’ indexes (what each job and delivery costs them)', () => {
  let dynalite: DynaliteServer;
  let raw: DynamoDBClient;
  let store: Store;

  beforeAll(async () => {
    dynalite = await startDynalite();
    raw = dynalite.client;
    await createTables(raw, tablePrefix);
    store = createDynamoDbStore({ client: createDocumentClient(raw), tablePrefix });
  }, 60_000);
  afterAll(async () => {
    await store.close();
    await dynalite.close();
  });

  const describeTable = async (suffix: string) => (await raw.send(new DescribeTableCommand({ TableName: `${tablePrefix}${suffix}` }))).Table ?? {};
  const scan = async (suffix: string) => (await raw.send(new ScanCommand({ TableName: `${tablePrefix}${suffix}` }))).Items ?? [];
  const rawJob = async (id: string) => (await scan('jobs')).find((item) => item.id?.S === id) as RawItem;

  it('no index holds every attribute of its items: each holds keys only, or keys and named attributes', async () => {
    for (const table of Object.values(TABLES)) {
      const { GlobalSecondaryIndexes = [] } = await describeTable(table.nameSuffix);
      expect(
        GlobalSecondaryIndexes.map((index) => index.Projection?.ProjectionType).filter((type) => type === 'ALL'),
        tableName('', table),
      ).toEqual([]);
    }
  });

  it('a job with 100 KB of inputs costs each index at most two write units a move, not the inputs’ size', async () => {
    const { KeySchema = [], GlobalSecondaryIndexes = [] } = await describeTable('jobs');
    const tableKeys = KeySchema.map((key) => key.AttributeName ?? '');
    const job = aJob({ inputs: { blob: 'x'.repeat(100 * 1024) } });
    await store.jobs.create(job);
    const created = await rawJob(job.id);
    await store.jobs.transition(job.id, ['queued'], { status: 'processing', startedAt: job.createdAt + 1, runId: 'run-1', countAttempt: true });
    const processing = await rawJob(job.id);
    await store.jobs.transition(job.id, ['processing'], { status: 'finished', completedAt: job.createdAt + 2 });
    const finished = await rawJob(job.id);
    const moves: [RawItem | undefined, RawItem][] = [
      [undefined, created],
      [created, processing],
      [processing, finished],
    ];
    const units: Record<string, number[]> = Object.fromEntries(
      GlobalSecondaryIndexes.map((index) => [index.IndexName, moves.map(([before, after]) => indexWriteUnits(before, after, index, tableKeys))]),
    );
    // A key that moves (into or out of the queued and active indexes) is a delete and a put.
    for (const perMove of Object.values(units)) for (const unit of perMove) expect(unit).toBeLessThanOrEqual(2);
    expect(
      Object.values(units)
        .flat()
        .reduce((sum, unit) => sum + unit, 0),
    ).toBeLessThan(20);
  });

  it("spreads one organization's jobs over several index partitions, and lists them newest first across them, page by page", async () => {
    const organizationId = 'org-sharded';
    const jobs = Array.from({ length: 24 }, (_, n) =>
      aJob({ id: `job-${String(n).padStart(2, '0')}`, organizationId, createdAt: 1000 + (n % 12), status: n % 3 === 0 ? 'finished' : 'queued' }),
    );
    for (const job of jobs) await store.jobs.create(job);
    const shards = new Set(
      (await scan('jobs'))
        .map((item) => unmarshall(item))
        .filter((item) => item.organization_id === organizationId)
        .map((item) => item.organization_shard as string),
    );
    expect(shards.size).toBeGreaterThan(1);
    for (const shard of shards) expect(shard.startsWith(`${organizationId}#`)).toBe(true);

    const newestFirst = [...jobs].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1)).map((job) => job.id);
    const list = async (page: { limit: number; offset: number }, status?: 'finished') =>
      (await store.jobs.listByOrganization({ organizationId, status }, page)).map((job) => job.id);
    expect(await list({ limit: 100, offset: 0 })).toEqual(newestFirst);
    for (const limit of [1, 5, 7]) {
      const walked: string[] = [];
      for (let offset = 0; offset < jobs.length + limit; offset += limit) walked.push(...(await list({ limit, offset })));
      expect(walked).toEqual(newestFirst);
    }
    const finished = newestFirst.filter((id) => jobs.find((job) => job.id === id)?.status === 'finished');
    expect(await list({ limit: 3, offset: 2 }, 'finished')).toEqual(finished.slice(2, 5));
    expect(await store.jobs.countActive(organizationId)).toEqual({ queued: 16, processing: 0 });
    expect((await store.jobs.listCreatedBetween(organizationId, 1000, 1012)).map((job) => job.id)).toEqual([...newestFirst].reverse());
  });

  it('spreads the pending deliveries over several index partitions, and lists them oldest first across them', async () => {
    const deliveries = Array.from({ length: 16 }, (_, n) => aDelivery({ id: `delivery-${n}`, createdAt: 100 + n, sequence: n, nextAttemptAt: 500 - n }));
    for (const delivery of deliveries) await store.deliveries.create(delivery);
    const shards = new Set((await scan('webhook_deliveries')).map((item) => item.pending_shard?.S));
    expect(shards.size).toBeGreaterThan(1);
    expect((await store.deliveries.listPending()).map((delivery) => delivery.id)).toEqual(deliveries.map((delivery) => delivery.id));
    const dueFirst = [...deliveries].reverse().map((delivery) => delivery.id);
    expect((await store.deliveries.listOverdue(500, 5)).map((delivery) => delivery.id)).toEqual(dueFirst.slice(0, 5));
  });

  it('an upgrade’s backfill puts the jobs and pending deliveries written before shards into the sharded indexes', async () => {
    const organizationId = 'org-before-shards';
    const jobs = [
      aJob({ organizationId, createdAt: 1 }),
      aJob({ organizationId, createdAt: 2, status: 'processing' }),
      aJob({ organizationId, createdAt: 3, status: 'finished' }),
    ];
    const delivery = aDelivery({ id: 'delivery-before-shards', createdAt: 1 });
    const client = createDocumentClient(raw);
    // Written as the store wrote them before: no shard attributes.
    for (const job of jobs) {
      await store.jobs.create(job);
      await client.send(
        new UpdateCommand({ TableName: `${tablePrefix}jobs`, Key: { id: job.id }, UpdateExpression: 'REMOVE organization_shard, active_shard' }),
      );
    }
    await store.deliveries.create(delivery);
    await client.send(new UpdateCommand({ TableName: `${tablePrefix}webhook_deliveries`, Key: { id: delivery.id }, UpdateExpression: 'REMOVE pending_shard' }));
    expect(await store.jobs.listByOrganization({ organizationId }, { limit: 10, offset: 0 })).toEqual([]);

    expect(await backfillShards(client, tablePrefix)).toEqual({ jobs: 3, deliveries: 1 });
    expect((await store.jobs.listByOrganization({ organizationId }, { limit: 10, offset: 0 })).map((job) => job.id)).toEqual(
      jobs.map((job) => job.id).reverse(),
    );
    expect(await store.jobs.countActive(organizationId)).toEqual({ queued: 1, processing: 1 });
    expect((await store.deliveries.listPending()).map((pending) => pending.id)).toContain(delivery.id);
    expect(await backfillShards(client, tablePrefix)).toEqual({ jobs: 0, deliveries: 0 });
  });
});
