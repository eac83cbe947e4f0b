import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, pythonFunction, startTestService, until, waitForBuild, writeFunctionDir } from './support/testService.js';

/** One line on stderr, `error: ...`, and no stack trace. */
function expectOneLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m);
  expect(lines[0]).toMatch(/^error: /);
  return lines[0] as string;
}

describe('sluice start, told what is wrong in one line', () => {
  let dataDir: string;
  let taken: Server;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sluice-mistakes-'));
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    taken.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('names the port in use and how to choose another', async () => {
    const port = String((taken.address() as AddressInfo).port);
    const result = await runCli(['start'], { PORT: port, SLUICE_DATA_DIR: dataDir, SLUICE_LOG_LEVEL: 'silent' }, 60_000);
    expect(result.code).toBe(1);
    expect(expectOneLine(result.stderr)).toBe(
      `error: Port ${port} is in use on 127.0.0.1 (another Sluice, or another program): choose another with --port or PORT.`,
    );
  });

  it('names SLUICE_PYTHON when it is not an interpreter', async () => {
    const result = await runCli(['start'], { PORT: '0', SLUICE_DATA_DIR: dataDir, SLUICE_LOG_LEVEL: 'silent', SLUICE_PYTHON: '/no/such/python3' }, 60_000);
    expect(result.code).toBe(1);
    expect(expectOneLine(result.stderr)).toContain('SLUICE_PYTHON: /no/such/python3 does not run as a Python interpreter');
  });
});

describe('the API, told what is wrong in one answer', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ SLUICE_MAX_BODY_MB: '0.01' });
  });
  afterAll(() => service.close());

  it('names the setting when a body is over the size limit', async () => {
    const response = await fetch(`${service.url}/v2/push`, {
      method: 'POST',
      headers: { 'x-api-key': service.key, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: { text: 'x'.repeat(20_000) } }),
    });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { detail: string }).detail).toContain('SLUICE_MAX_BODY_MB');
  });

  it('lists the valid statuses when a job list is filtered by an unknown one', async () => {
    for (const path of ['/v2/jobs?status=done', '/v2/functions/local/hello/jobs?status=done']) {
      const { status, body } = await api(service.url, service.key, 'GET', path);
      expect(status).toBe(422);
      expect(body.detail).toEqual([
        expect.objectContaining({
          loc: ['query', 'status'],
          msg: 'Unknown status: use one of queued, processing, error, finished, cancelled (or none for every status)',
        }),
      ]);
    }
  });
});

describe('a GPU function on a machine without its GPU, emulation off', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ SLUICE_EMULATE_GPUS: 'false' });
  });
  afterAll(() => service.close());

  it('is deployed with a warning, pushed with one, and its version says why its jobs wait', async () => {
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': pythonFunction('needs-t4', ', gpu=sluice.gpu.T4()') }));
    expect(deployed.body.version.warning).toMatch(/^No t4 GPU on this machine, and GPU emulation is off \(SLUICE_EMULATE_GPUS\)/);
    await waitForBuild(service, 'local/needs-t4', deployed.body.version.id);
    const pushed = await api(service.url, service.key, 'POST', '/v2/push', { function: 'local/needs-t4', inputs: { text: 'a' } });
    expect(pushed.body).toMatchObject({ status: 'queued', warning: deployed.body.version.warning });
    await until(
      async () =>
        (await api(service.url, service.key, 'GET', `/v2/functions/local/needs-t4/versions/${deployed.body.version.id}`)).body.current_workers
          .awaiting_resources === 1,
    );
    const version = await api(service.url, service.key, 'GET', `/v2/functions/local/needs-t4/versions/${deployed.body.version.id}`);
    expect(version.body.warning).toBe(deployed.body.version.warning);
    expect((await api(service.url, service.key, 'GET', `/v2/jobs/${pushed.body.id}`)).body.status).toBe('queued');
  });

  it('says nothing of the kind for a CPU function', async () => {
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': pythonFunction('cpu-only') }));
    expect(deployed.body.version).not.toHaveProperty('warning');
  });
});

describe('a version whose code does not import in its environment', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.close());

  it('fails its build with the import error, in the version and its build log, before any job runs', async () => {
    const source = `import sluice\nimport no_such_dependency\n\n@sluice.function(name="forgot-a-package")\ndef run(text: str) -> str:\n    return text\n`;
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': source }));
    const version = await waitForBuild(service, 'local/forgot-a-package', deployed.body.version.id);
    expect(version.build_status).toBe('error');
    const logs = (await api(service.url, service.key, 'GET', `/v2/logs?version_id=${deployed.body.version.id}`)).body;
    const lines: string[] = logs.data.flatMap((group: any) => group.logs.map((log: any) => log.message));
    expect(lines).toContain("ModuleNotFoundError: No module named 'no_such_dependency'");
    expect(lines.at(-1)).toBe(
      "Build failed: The code does not import in its environment: ModuleNotFoundError: No module named 'no_such_dependency' (add what it needs to python_packages or system_packages; see the build logs).",
    );
    const pushed = await api(service.url, service.key, 'POST', '/v2/push', { function: 'local/forgot-a-package', inputs: { text: 'a' } });
    expect(pushed.status).toBeGreaterThanOrEqual(400);
    expect(pushed.status).toBeLessThan(500);
  });
});
