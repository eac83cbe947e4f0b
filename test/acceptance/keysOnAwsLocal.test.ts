import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../e2e/support/testService.js';
import { runCli } from '../e2e/support/cli.js';
import { startAwsTarget, type AwsTarget } from './targets.js';

/**
 * An operator of `npm run aws:local` adds organizations and keys as on a real deployment:
 * `sluice keys` pointed at the emulation's data directory works on the emulated DynamoDB
 * that the service reads (docs/aws-local.md, "Organizations and keys").
 */
describe('sluice keys on npm run aws:local', () => {
  let target: AwsTarget;
  beforeAll(async () => {
    target = await startAwsTarget();
  }, 180_000);
  afterAll(async () => target?.close());

  it('creates an organization whose key the emulated service accepts, and lists it', async () => {
    const created = await runCli(['keys', 'create', '--org', 'acme'], { SLUICE_DATA_DIR: target.dataDir });
    expect(created.code, created.stderr).toBe(0);
    const secret = created.stdout.trim().split('\n').at(-1) as string;

    const organization = await api(target.url, secret, 'GET', '/v2/organization');
    expect(organization.status).toBe(200);
    expect(organization.body.name).toBe('acme');
    expect((await api(target.url, secret, 'GET', '/v2/jobs')).status).toBe(200);

    const listed = await runCli(['keys', '--data-dir', target.dataDir, 'list'], {});
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('acme');
    // The bootstrap key aws:local made is in the same store.
    expect(listed.stdout).toContain('local');
  }, 60_000);
});

describe('sluice keys on a stopped npm run aws:local', () => {
  let dataDir: string;
  beforeAll(async () => {
    // What a stopped (or killed) emulation leaves: its synthesized app, and maybe the file naming a process that is gone.
    dataDir = await mkdtemp(join(tmpdir(), 'sluice-aws-stopped-'));
    await mkdir(join(dataDir, 'cdk.out'));
    await writeFile(
      join(dataDir, 'aws-local.json'),
      JSON.stringify({ dynamoDbEndpoint: 'http://127.0.0.1:9', tablePrefix: 'sluice-', region: 'us-east-1', pid: 2 ** 22 + 1 }),
    );
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('refuses, naming the commands that work, and makes no store nobody reads', async () => {
    const created = await runCli(['keys', 'create', '--org', 'acme'], { SLUICE_DATA_DIR: dataDir });
    expect(created.code).toBe(1);
    expect(created.stdout).toBe('');
    expect(created.stderr).toContain(`${dataDir} is the data directory of \`npm run aws:local\`, which is not running`);
    expect(created.stderr).toContain(`SLUICE_DATA_DIR=${dataDir} npm run aws:local`);
    expect(created.stderr).toContain(`npx sluice keys create --org acme --data-dir ${dataDir}`);
    const { existsSync } = await import('node:fs');
    expect(existsSync(join(dataDir, 'sluice.db'))).toBe(false);
  });
});
