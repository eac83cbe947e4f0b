import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, pythonFunction, startTestService, waitForBuild, writeFunctionDir } from './support/testService.js';

/** A raw HTTP/1.1 connection, to send a request as slowly, or as partially, as an attacker would. */
function openConnection(url: string): Promise<{ socket: Socket; answer: Promise<string>; answeredAt: () => number | null }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      let text = '';
      let at: number | null = null;
      const answer = new Promise<string>((done) => {
        socket.on('data', (chunk: Buffer) => {
          at ??= Date.now();
          text += chunk.toString();
        });
        socket.on('close', () => done(text));
        socket.on('error', () => done(text));
      });
      resolve({ socket, answer, answeredAt: () => at });
    });
    socket.on('error', reject);
  });
}

const statusOf = (raw: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);
const detailOf = (raw: string) => JSON.parse(/\{"detail".*\}/.exec(raw)?.[0] ?? '{}').detail;

describe('requests: what the service does with hostile HTTP', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService({ SLUICE_BODY_TIMEOUT_S: '1' });
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': pythonFunction('echo') }));
    await waitForBuild(service, 'local/echo', deployed.body.version.id);
  }, 60_000);
  afterAll(() => service.close());

  it('answers 401 to a request without a valid key before reading its body: a 50 MB body is never taken', async () => {
    for (const key of ['', 'x-api-key: sk_not-a-real-key-0123456789\r\n']) {
      const { socket, answer } = await openConnection(service.url);
      socket.write(`POST /v2/push HTTP/1.1\r\nHost: x\r\n${key}Content-Type: application/json\r\nContent-Length: ${50 * 1024 * 1024}\r\n\r\n{"inputs":`);
      // Not a byte more of the body is sent: the answer must come anyway, and the connection close.
      const raw = await answer;
      socket.destroy();
      expect(statusOf(raw)).toBe(401);
      expect(raw.toLowerCase()).toContain('connection: close');
      expect(detailOf(raw)).toMatch(/API key/i);
    }
  });

  it('answers 408 to a body that trickles in, and keeps serving others meanwhile', async () => {
    const { socket, answer, answeredAt } = await openConnection(service.url);
    const started = Date.now();
    socket.write(`POST /v2/push HTTP/1.1\r\nHost: x\r\nx-api-key: ${service.key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
    const drip = setInterval(() => socket.writable && socket.write(' '), 100);
    try {
      const others = await api(service.url, service.key, 'GET', '/v2/organization');
      expect(others.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(500);
      const raw = await answer;
      expect(statusOf(raw)).toBe(408);
      expect(detailOf(raw)).toBe('Request body not received within 1 s.');
      expect((answeredAt() ?? Infinity) - started).toBeLessThan(3000);
    } finally {
      clearInterval(drip);
      socket.destroy();
    }
  });

  it('answers 400 with a detail to a malformed percent-encoding in the path or the query', async () => {
    for (const path of ['/v2/jobs/%E0%A4%A', '/v2/jobs/%zz/await', '/v2/jobs?limit=%', '/v2/functions/local/echo?x=%E2%82', '/uploads/%zz/x']) {
      const response = await fetch(`${service.url}${path}`, { headers: { 'x-api-key': service.key } });
      expect([path, response.status]).toEqual([path, 400]);
      expect(((await response.json()) as { detail: string }).detail).toBe('Malformed request target: check its percent-encoding.');
    }
  });

  it('refuses at deploy python_packages and system_packages entries that are options, URLs or paths: 422 naming each', async () => {
    const metadata = (python_packages: string[], system_packages: string[] = []) => ({
      metadata: { name: 'packages', entrypoint: { file: 'main.py', symbol: 'run', kind: 'function' }, python_packages, system_packages },
      bundle: 'bm90IGEgdGFy',
    });
    const hostile = [
      '--index-url=http://evil.example/simple',
      '-r/etc/passwd',
      'git+https://github.com/evil/pkg',
      'pkg @ https://evil.example/pkg.tar.gz',
      '/etc/passwd',
      './x',
      '../x',
      'x.whl',
      'numpy --pre',
    ];
    const { status, body } = await api(
      service.url,
      service.key,
      'POST',
      '/v2/functions/local/packages/versions',
      metadata(hostile, ['-oAPT::Get::AllowUnauthenticated=true', 'http://evil/x.deb', '/tmp/x.deb']),
    );
    expect(status).toBe(422);
    const fields = body.detail.map((issue: any) => issue.loc.join('.'));
    expect(fields).toEqual([
      ...hostile.map((_, i) => `body.metadata.python_packages.${i}`),
      ...[0, 1, 2].map((i) => `body.metadata.system_packages.${i}`),
      'body.bundle',
    ]);
    expect(body.detail[0].msg).toContain('no options, URLs or paths');
    expect((await api(service.url, service.key, 'GET', '/v2/functions/local/packages')).status).toBe(404);

    const fine = await api(
      service.url,
      service.key,
      'POST',
      '/v2/functions/local/packages/versions',
      metadata(['numpy', 'torch==2.3.0', 'uvicorn[standard]>=0.30,<1']),
    );
    expect(fine.body.detail.map((issue: any) => issue.loc.join('.'))).toEqual(['body.bundle']); // only the made-up bundle is wrong
  });

  it('refuses webhook URLs on multicast, broadcast, benchmarking, NAT64, 6to4, Teredo and IPv4-compatible forms of internal addresses', async () => {
    const hooks = [
      'http://224.0.0.1/',
      'http://255.255.255.255/',
      'http://198.18.0.1/',
      'http://[64:ff9b::a9fe:a9fe]/',
      'http://[2002:a9fe:a9fe::1]/',
      'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
      'http://[::a9fe:a9fe]/',
      'http://[::ffff:0:a00:1]/',
    ];
    const { status, body } = await api(service.url, service.key, 'POST', '/v2/push', {
      function: 'local/echo',
      inputs: { text: 'x' },
      webhooks: hooks.map((url) => ({ type: 'job.complete', url })),
    });
    expect(status).toBe(422);
    expect(body.detail.map((issue: any) => issue.loc.join('.')).sort()).toEqual(hooks.map((_, i) => `body.webhooks.${i}.url`).sort());
  });
});
