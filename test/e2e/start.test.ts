import { execSync } from 'node:child_process';
import { mkdtemp, rm, stat, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { startServiceProcess as startService, stopServiceProcess as stop } from './support/serviceProcess.js';
import { api } from './support/testService.js';

describe('sluice start', () => {
  const dirs: string[] = [];
  const newDataDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sluice-start-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('starts with the examples that install nothing ready, prints the key and a curl to paste, and stops cleanly on SIGINT', async () => {
    const dataDir = await newDataDir();
    const service = await startService(dataDir);
    const hello = await api(service.url, service.key, 'GET', '/v2/functions/local/hello');
    expect(hello.status).toBe(200);
    expect(hello.body.latest_version.build_status).toBe('ready');
    // Examples that install packages are left out, so a first start stays fast and works offline; it names them.
    expect((await api(service.url, service.key, 'GET', '/v2/functions/local/digits')).status).toBe(404);
    expect(service.output()).toContain('npx sluice deploy DIR, for examples/audio, examples/digits, examples/image, examples/video');
    // The printed curl, run as a newcomer pastes it, pushes a job whose result await returns.
    const pushCurl = service
      .output()
      .split('\n')
      .find((line) => line.includes('/v2/push')) as string;
    const pushed = JSON.parse(execSync(pushCurl.trim(), { encoding: 'utf8' })) as { id: string };
    const awaitCurl = (
      service
        .output()
        .split('\n')
        .find((line) => line.includes('/await')) as string
    ).split('#')[0] as string;
    const job = JSON.parse(execSync(awaitCurl.replace('JOB_ID', pushed.id).trim(), { encoding: 'utf8' }));
    expect(job).toMatchObject({ status: 'finished', outputs: [expect.objectContaining({ data: 'Hello, Ada.' })] });
    const keyFile = join(dataDir, 'api-key');
    expect((await readFile(keyFile, 'utf8')).trim()).toBe(service.key);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    expect(await stop(service.child, 'SIGINT')).toBe(0);
  });

  it('without --examples, deploys nothing and offers no call to a function that is not there', async () => {
    const service = await startService(await newDataDir(), {}, []);
    expect(service.output()).not.toContain('/v2/push');
    expect(service.output()).toContain('npx sluice deploy path/to/function');
    expect((await api(service.url, service.key, 'GET', '/v2/functions')).body).toEqual([]);
    expect(await stop(service.child, 'SIGTERM')).toBe(0);
  });

  it('keeps its data and its key across a restart, and stops cleanly on SIGTERM', async () => {
    const dataDir = await newDataDir();
    const first = await startService(dataDir);
    const versionId = (await api(first.url, first.key, 'GET', '/v2/functions/local/hello')).body.latest_version.id;
    await api(first.url, first.key, 'POST', '/v2/functions/local/hello/edit', { description: 'kept' });
    expect(await stop(first.child, 'SIGTERM')).toBe(0);

    const second = await startService(dataDir);
    expect(second.key).toBe(first.key);
    expect(second.output()).not.toContain('(new)');
    const hello = await api(second.url, second.key, 'GET', '/v2/functions/local/hello');
    expect(hello.body.description).toBe('kept');
    // Present already: not deployed again.
    expect(hello.body.latest_version.id).toBe(versionId);
    expect(await stop(second.child, 'SIGTERM')).toBe(0);
  });

  it('refuses to start a second service on the same data directory, saying why, while the first goes on', async () => {
    const dataDir = await newDataDir();
    const first = await startService(dataDir, {}, []);
    const second = await runCli(['start'], { PORT: '0', SLUICE_DATA_DIR: dataDir, SLUICE_LOG_LEVEL: 'warn' }, 30_000);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`Another Sluice service is already running on the data directory ${dataDir}`);
    expect(second.stdout).not.toContain('running at');
    expect((await api(first.url, first.key, 'GET', '/v2/organization')).status).toBe(200);
    expect(await stop(first.child, 'SIGTERM')).toBe(0);
  });

  it('starts at once on the data directory of a service that was killed (kill -9)', async () => {
    const dataDir = await newDataDir();
    const killed = await startService(dataDir, {}, []);
    expect(await stop(killed.child, 'SIGKILL')).toBeNull();
    const next = await startService(dataDir, {}, []);
    expect(next.key).toBe(killed.key);
    expect((await api(next.url, next.key, 'GET', '/v2/organization')).status).toBe(200);
    expect(await stop(next.child, 'SIGTERM')).toBe(0);
  });

  it('starts with its bootstrap key revoked, says so and how to make a new one, and does not bring the key back', async () => {
    const dataDir = await newDataDir();
    const first = await startService(dataDir, {}, []);
    const env = { SLUICE_DATA_DIR: dataDir };
    const id = /^(\S+)\s+local\s/m.exec((await runCli(['keys', 'list'], env)).stdout)?.[1] as string;
    expect((await runCli(['keys', 'revoke', id], env)).code).toBe(0);
    expect(await stop(first.child, 'SIGTERM')).toBe(0);

    const second = await startService(dataDir, {}, ['--examples']);
    expect(second.output()).toContain(`The API key in ${join(dataDir, 'api-key')} has been revoked`);
    expect(second.output()).toContain('npx sluice keys create --org local');
    expect(second.output()).not.toContain(first.key);
    expect((await api(second.url, first.key, 'GET', '/v2/organization')).status).toBe(401);
    const created = await runCli(['keys', 'create', '--org', 'local'], env);
    const fresh = created.stdout.trim().split('\n').at(-1) as string;
    expect((await api(second.url, fresh, 'GET', '/v2/functions/local/hello')).body.latest_version.build_status).toBe('ready');
    expect(await stop(second.child, 'SIGTERM')).toBe(0);
  });

  it('uses SLUICE_API_KEY as the bootstrap key when it is set', async () => {
    const preset = 'sk_preset-key-for-this-test-0001';
    const service = await startService(await newDataDir(), { SLUICE_API_KEY: preset });
    expect(service.key).toBe(preset);
    expect((await api(service.url, preset, 'GET', '/v2/organization')).body.name).toBe('local');
    expect(await stop(service.child, 'SIGTERM')).toBe(0);
  });
});
