import { createServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import type { TestService } from './support/testService.js';
import { api, pythonFunction, startTestService, writeFunctionDir } from './support/testService.js';

describe('sluice deploy', () => {
  let service: TestService;
  let env: Record<string, string>;

  beforeAll(async () => {
    // pip is pointed at a closed local port: PyPI is never reached, and the failure is quick.
    service = await startTestService({ SLUICE_PIP_ARGS: '--retries 0 --timeout 2 --index-url http://127.0.0.1:9/simple' });
    env = { SLUICE_URL: service.url, SLUICE_API_KEY: service.key };
  });
  afterAll(() => service.close());

  it('shows the build moving through its states and ends with the version id', async () => {
    const dir = await writeFunctionDir({ 'main.py': pythonFunction('greet'), 'helpers/data.txt': 'hello' });
    const result = await runCli(['deploy', dir], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    const states = lines.filter((line) => /^ {2}(queued|building|pushing|deploying|ready)$/.test(line)).map((line) => line.trim());
    expect(states.at(-1)).toBe('ready');
    expect(states).toEqual([...new Set(states)]);
    const id = /✓ local\/greet is ready: version (\S+)/.exec(result.stdout)?.[1];
    expect((await api(service.url, service.key, 'GET', `/v2/functions/local/greet/versions/${id}`)).body.build_status).toBe('ready');
    expect(result.stdout).toContain('| Building version');
  });

  it('deploys a class function with __setup__ and __predict__ and a generator', async () => {
    const dir = await writeFunctionDir({
      'model.py': `import sluice
from typing import Iterator

@sluice.function(name="counter", gpu=sluice.gpu.T4(split=2), environment_variables=[sluice.Env(name="STEP", default="1")])
class Counter:
    def __setup__(self):
        self.start = 0

    def __predict__(self, upto: int) -> Iterator[int]:
        for i in range(self.start, upto):
            yield i
`,
    });
    expect((await runCli(['deploy', dir], env)).code).toBe(0);
    const version = (await api(service.url, service.key, 'GET', '/v2/functions/local/counter/versions/latest')).body;
    expect(version).toMatchObject({
      compute_type: 't4',
      gpu: true,
      split: 2,
      stream_output: true,
      environment_variables: [{ name: 'STEP', description: '', default: '1' }],
      inputs: [expect.objectContaining({ name: 'upto', type: 'int', is_optional: false })],
      outputs: [expect.objectContaining({ type: 'int' })],
    });
  });

  it('ends in error with pip’s output in the build logs when a package cannot be installed', async () => {
    const dir = await writeFunctionDir({ 'main.py': pythonFunction('needs-pip', ', python_packages=["definitely-not-a-package==1.0"]') });
    const result = await runCli(['deploy', dir], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^ {2}error$/m);
    expect(result.stdout).toContain('pip install failed');
    expect(result.stdout).toMatch(/\| .*definitely-not-a-package/);
    expect(result.stderr).toContain('1 build failed');
  });

  it('ends in error naming the missing interpreter when python_version is not installed', async () => {
    const result = await runCli(['deploy', await writeFunctionDir({ 'main.py': pythonFunction('old', ', python_version="3.99"') })], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Python 3.99 is not installed');
  });

  it('ends in error naming a missing system package', async () => {
    const dir = await writeFunctionDir({ 'main.py': pythonFunction('needs-apt', ', system_packages=["sluice-no-such-package"]') });
    const result = await runCli(['deploy', dir], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('System package not installed: sluice-no-such-package');
    const version = (await api(service.url, service.key, 'GET', '/v2/functions/local/needs-apt/versions/latest')).body;
    expect(version.build_status).toBe('error');
  });

  it('refuses bad metadata with the field named, and creates nothing', async () => {
    const dir = await writeFunctionDir({ 'main.py': pythonFunction('bad-split', ', gpu=sluice.gpu.T4(split=9)') });
    const result = await runCli(['deploy', dir], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/main\.py:3: gpu\.split must be between 1 and 8/);
    expect((await api(service.url, service.key, 'GET', '/v2/functions/local/bad-split')).status).toBe(404);
  });

  it('holds a hand-made deploy request to the same rules: 422 with the field path', async () => {
    const { status, body } = await api(service.url, service.key, 'POST', '/v2/functions/local/handmade/versions', {
      metadata: { name: 'handmade', entrypoint: { file: 'main.py', symbol: 'run', kind: 'function' }, gpu: { machine_type: 't4', split: 12 } },
      bundle: 'bm90IGEgdGFy',
    });
    expect(status).toBe(422);
    expect(body.detail.map((issue: any) => issue.loc.join('.'))).toEqual(['body.metadata.gpu.split', 'body.bundle']);
    expect((await api(service.url, service.key, 'GET', '/v2/functions/local/handmade')).status).toBe(404);
  });

  it('gives up on a version still building after --timeout, exits non-zero, and says which state it was in and where to look', async () => {
    const dripping = await startDrippingPackageServer();
    // The operator's index (SLUICE_PIP_ARGS) drips: a deploy itself may name no URL to install from.
    const slowIndex = await startTestService({ SLUICE_PIP_ARGS: `--index-url ${dripping.url}/simple` });
    try {
      const dir = await writeFunctionDir({ 'main.py': pythonFunction('stuck', ', python_packages=["hang"]') });
      const result = await runCli(['deploy', dir, '--timeout', '5s', '--stall', '1s'], { SLUICE_URL: slowIndex.url, SLUICE_API_KEY: slowIndex.key });
      expect(result.code).toBe(1);
      const id = /Deploying local\/stuck, version (\S+)/.exec(result.stdout)?.[1];
      expect(result.stdout).toMatch(/^ {2}… still (queued|building), no new log line for \d+s:$/m);
      expect(result.stdout).toMatch(new RegExp(`✗ local/stuck is still (queued|building) after 5s, with no new log line for \\d+s \\(version ${id}\\)`));
      expect(result.stdout).toContain(`GET /v2/logs?version_id=${id}`);
      expect(result.stderr).toContain('1 version did not finish within 5s (--timeout); its build goes on without sluice deploy');
    } finally {
      dripping.close();
      await slowIndex.close();
    }
  });

  it('refuses a timeout that is not a duration', async () => {
    const result = await runCli(['deploy', '.', '--timeout', 'soon'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('"soon" is not a duration: use e.g. 90s, 20m or 2h');
  });

  it('says clearly when the service cannot be reached', async () => {
    const dir = await writeFunctionDir({ 'main.py': pythonFunction('nowhere') });
    const result = await runCli(['deploy', dir], { SLUICE_URL: 'http://127.0.0.1:9', SLUICE_API_KEY: 'sk_some-key-for-nowhere' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Cannot reach the service at http:\/\/127\.0\.0\.1:9/);
  });
});

/**
 * A package index whose pages never end: one byte every 200 ms of 100 MB, so pip neither
 * finishes nor hits its read timeout, and the build stays in building until this closes.
 */
async function startDrippingPackageServer() {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000000\r\n\r\n');
    const drip = setInterval(() => socket.write('x'), 200);
    socket.on('close', () => clearInterval(drip));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}
