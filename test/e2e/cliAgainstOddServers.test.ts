import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

/** A server that answers every request 200 with the same body, as a broken or hostile one might. */
function answering(body: string): Promise<{ url: string; server: Server }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(body);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })));
}

describe('the CLI against a service that answers what it should not', () => {
  const servers: Server[] = [];
  const urls: Record<string, string> = {};

  beforeAll(async () => {
    for (const body of ['null', '{}', '[]']) {
      const { url, server } = await answering(body);
      servers.push(server);
      urls[body] = url;
    }
  });
  afterAll(() => servers.forEach((server) => server.close()));

  for (const body of ['null', '{}', '[]']) {
    it(`prints one error line, never a stack trace, when every answer is ${body}`, async () => {
      for (const command of [['job', 'some-id'], ['jobs'], ['functions'], ['usage']]) {
        const result = await runCli(command, { SLUICE_URL: urls[body] as string, SLUICE_API_KEY: 'sk_test' });
        if (result.code === 0) continue; // a shape it can print is fine too
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
        expect(result.stderr).toMatch(/^error: /);
        expect(result.stderr).not.toMatch(/\n\s+at /);
      }
    });
  }
});
