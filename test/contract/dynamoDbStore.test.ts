import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { createTables } from '../../shared/adapters/aws/dynamodb/createTables.js';
import { createDocumentClient, createDynamoDbStore, type DynamoDbStoreOptions } from '../../shared/adapters/aws/dynamodb/dynamoDbStore.js';
import { aLogEntry } from '../support/fixtures.js';
import { startDynalite } from './dynaliteServer.js';
import { describeStoreContract } from './storeContract.js';

const tablePrefix = 'test-';

/** A DynamoDB store on its own dynalite, its tables made from tables.ts. */
async function startDynamoDbStore(options: Partial<DynamoDbStoreOptions> = {}) {
  const dynalite = await startDynalite();
  await createTables(dynalite.client, tablePrefix);
  const client = createDocumentClient(dynalite.client);
  const store = createDynamoDbStore({ client, tablePrefix, ...options });
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
});
