import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTables } from '../../shared/adapters/aws/dynamodb/createTables.js';
import { createDocumentClient, createDynamoDbStore } from '../../shared/adapters/aws/dynamodb/dynamoDbStore.js';
import type { DynaliteServer } from '../contract/dynaliteServer.js';
import { startDynalite } from '../contract/dynaliteServer.js';
import { runCli } from './support/cli.js';

const HEADER = 'ORGANIZATION\tWEIGHT\tMONTHLY_BUDGET\tMAX_ACTIVE_JOBS\tWARN_AT';

describe('sluice orgs', () => {
  let env: Record<string, string>;
  beforeAll(async () => {
    env = { SLUICE_DATA_DIR: await mkdtemp(join(tmpdir(), 'sluice-orgs-')) };
    expect((await runCli(['keys', 'create', '--org', 'acme'], env)).code).toBe(0);
    expect((await runCli(['keys', 'create', '--org', 'beta'], env)).code).toBe(0);
  });
  afterAll(() => rm(env.SLUICE_DATA_DIR as string, { recursive: true, force: true }));

  it("sets an organization's limits, shows them, and lists every organization's", async () => {
    const set = await runCli(['orgs', 'limits', 'acme', '--weight', '2', '--monthly-budget', '100', '--max-active-jobs', '50', '--warn-at', '0.9'], env);
    expect(set.code).toBe(0);
    expect(set.stdout.trim().split('\n')).toEqual([HEADER, 'acme\t2\t100\t50\t0.9']);
    // Only the options given change; `none` removes a cap.
    expect((await runCli(['orgs', 'limits', 'acme', '--monthly-budget', 'none'], env)).stdout).toContain('acme\t2\tnone\t50\t0.9');
    expect((await runCli(['orgs', 'limits', 'acme'], env)).stdout).toContain('acme\t2\tnone\t50\t0.9');
    expect((await runCli(['orgs', 'list'], env)).stdout.trim().split('\n')).toEqual([HEADER, 'acme\t2\tnone\t50\t0.9', 'beta\t1\tnone\tnone\t0.8']);
  });

  it('names the option whose value is out of bounds, and an unknown organization, without a stack trace', async () => {
    const bad = await runCli(['orgs', 'limits', 'acme', '--weight', '0', '--warn-at', 'lots'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: --weight: .*; --warn-at: /);
    const unknown = await runCli(['orgs', 'limits', 'nobody', '--weight', '2'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error: Organization "nobody" does not exist/);
  });
});

describe('sluice orgs in the AWS mode', () => {
  let dynalite: DynaliteServer;
  let env: Record<string, string>;
  beforeAll(async () => {
    dynalite = await startDynalite();
    await createTables(dynalite.client, 'orgs-');
    env = {
      SLUICE_MODE: 'aws',
      SLUICE_TABLE_PREFIX: 'orgs-',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'fake',
      AWS_SECRET_ACCESS_KEY: 'fake',
      AWS_ENDPOINT_URL_DYNAMODB: dynalite.endpoint,
    };
  });
  afterAll(() => dynalite.close());

  it('stores the limits in DynamoDB', async () => {
    expect((await runCli(['keys', 'create', '--org', 'acme'], env)).code).toBe(0);
    expect((await runCli(['orgs', 'limits', 'acme', '--monthly-budget', '25.5', '--weight', '3'], env)).code).toBe(0);
    const store = createDynamoDbStore({ client: createDocumentClient(dynalite.client), tablePrefix: 'orgs-' });
    expect((await store.organizations.getByName('acme'))?.limits).toEqual({ weight: 3, monthlyBudgetDollars: 25.5, maxActiveJobs: null, budgetWarningAt: 0.8 });
    expect((await runCli(['orgs', 'list'], env)).stdout).toContain('acme\t3\t25.5\tnone\t0.8');
  });
});
