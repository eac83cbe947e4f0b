import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTables } from '../../shared/adapters/aws/dynamodb/createTables.js';
import { createDocumentClient, createDynamoDbStore } from '../../shared/adapters/aws/dynamodb/dynamoDbStore.js';
import { hashApiKey } from '../../shared/domain/apiKey.js';
import type { DynaliteServer } from '../contract/dynaliteServer.js';
import { startDynalite } from '../contract/dynaliteServer.js';
import { runCli } from './support/cli.js';

describe('sluice keys in the AWS mode', () => {
  let dynalite: DynaliteServer;
  let env: Record<string, string>;
  beforeAll(async () => {
    dynalite = await startDynalite();
    await createTables(dynalite.client, 'cli-');
    // What docs/deploying-to-aws.md tells an operator to run, pointed at dynalite instead of AWS.
    env = {
      SLUICE_MODE: 'aws',
      SLUICE_TABLE_PREFIX: 'cli-',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'fake',
      AWS_SECRET_ACCESS_KEY: 'fake',
      AWS_ENDPOINT_URL_DYNAMODB: dynalite.endpoint,
    };
  });
  afterAll(() => dynalite.close());

  it('creates the first organization and key in DynamoDB', async () => {
    const created = await runCli(['keys', 'create', '--org', 'acme'], env);
    expect(created.code).toBe(0);
    const secret = created.stdout.trim().split('\n').at(-1) as string;
    const store = createDynamoDbStore({ client: createDocumentClient(dynalite.client), tablePrefix: 'cli-' });
    const key = await store.apiKeys.getByHash(hashApiKey(secret));
    expect(key?.revokedAt).toBeNull();
    expect((await store.organizations.getById(key?.organizationId as string))?.name).toBe('acme');
    expect((await runCli(['keys', 'list'], env)).stdout).toContain('acme');
  });
});
