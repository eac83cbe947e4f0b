import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTables } from '../../shared/adapters/aws/dynamodb/createTables.js';
import { createDocumentClient, createDynamoDbStore } from '../../shared/adapters/aws/dynamodb/dynamoDbStore.js';
import type { Store } from '../../shared/ports/store.js';
import { aJob } from '../support/fixtures.js';
import { startDynalite } from './dynaliteServer.js';

describe('the DynamoDB job store’s status read (what an AWS waiter polls)', () => {
  let store: Store;
  let close: () => Promise<void>;
  const projections: unknown[] = [];

  beforeAll(async () => {
    const dynalite = await startDynalite();
    await createTables(dynalite.client, 'test-');
    const client = createDocumentClient(dynalite.client);
    client.middlewareStack.add(
      (next, context) => (args) => {
        if (/^Get(Item)?Command$/.test(context.commandName ?? '')) projections.push((args.input as { ProjectionExpression?: string }).ProjectionExpression);
        return next(args);
      },
      { step: 'initialize' },
    );
    store = createDynamoDbStore({ client, tablePrefix: 'test-' });
    close = async () => {
      await store.close();
      await dynalite.close();
    };
  }, 60_000);
  afterAll(async () => close?.());

  it('reads the status alone, consistently, and null for no such job', async () => {
    const job = aJob({ status: 'processing' });
    await store.jobs.create(job);
    projections.length = 0;
    expect(await store.jobs.statusOf(job.id)).toBe('processing');
    await store.jobs.transition(job.id, ['processing'], { status: 'finished', completedAt: 1 });
    expect(await store.jobs.statusOf(job.id)).toBe('finished');
    expect(await store.jobs.statusOf('no-such-job')).toBeNull();
    expect(projections).toEqual(['#status', '#status', '#status']);
  });
});
