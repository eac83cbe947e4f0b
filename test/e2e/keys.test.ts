import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

describe('sluice keys', () => {
  let env: Record<string, string>;
  beforeAll(async () => {
    env = { SLUICE_DATA_DIR: await mkdtemp(join(tmpdir(), 'sluice-keys-')) };
  });
  afterAll(() => rm(env.SLUICE_DATA_DIR as string, { recursive: true, force: true }));

  it('creates an organization with a key, lists keys without the secret, and revokes by id prefix', async () => {
    const created = await runCli(['keys', 'create', '--org', 'acme'], env);
    expect(created.code).toBe(0);
    const secret = created.stdout.trim().split('\n').at(-1) as string;
    expect(secret).toMatch(/^sk_[\w-]{43}$/);
    const id = /Created key (\S+)/.exec(created.stdout)?.[1] as string;

    const listed = await runCli(['keys', 'list'], env);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain('acme');
    expect(listed.stdout).toContain('active');
    expect(listed.stdout).not.toContain(secret);

    expect((await runCli(['keys', 'revoke', id.slice(0, 8)], env)).code).toBe(0);
    expect((await runCli(['keys', 'list', '--org', 'acme'], env)).stdout).toMatch(/revoked \d{4}-/);
  });

  it('adds a second key to an existing organization', async () => {
    await runCli(['keys', 'create', '--org', 'two'], env);
    await runCli(['keys', 'create', '--org', 'two'], env);
    const listed = await runCli(['keys', 'list', '--org', 'two'], env);
    expect(listed.stdout.trim().split('\n')).toHaveLength(3);
  });

  it('explains a bad organization name or an unknown key id without a stack trace', async () => {
    const badName = await runCli(['keys', 'create', '--org', 'Not Valid'], env);
    expect(badName.code).toBe(1);
    expect(badName.stderr).toMatch(/^error: Organization name "Not Valid" is invalid/);
    const unknown = await runCli(['keys', 'revoke', 'ffffffff'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error: No active API key/);
  });
});
