import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTaskProtection } from '../../../shared/adapters/aws/taskProtection.js';

describe('ECS task scale-in protection', () => {
  const requests: { method: string; url: string; body: any }[] = [];
  let status = 200;
  const agent = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      requests.push({ method: request.method ?? '', url: request.url ?? '', body: JSON.parse(body) });
      response.writeHead(status).end('{}');
    });
  });
  let agentUri = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => agent.listen(0, '127.0.0.1', resolve));
    agentUri = `http://127.0.0.1:${(agent.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => agent.close(() => resolve())));

  it('protects the task while it is busy and releases it when idle, telling the agent only of changes', async () => {
    requests.length = 0;
    const protection = createTaskProtection(agentUri, () => undefined);
    await protection.set(true);
    await protection.set(true);
    await protection.set(false);
    expect(requests).toEqual([
      { method: 'PUT', url: '/task-protection/v1/state', body: { ProtectionEnabled: true, ExpiresInMinutes: 60 } },
      { method: 'PUT', url: '/task-protection/v1/state', body: { ProtectionEnabled: false } },
    ]);
  });

  it('reports a refusal and tries again at the next call', async () => {
    requests.length = 0;
    const errors: unknown[] = [];
    const protection = createTaskProtection(agentUri, (error) => errors.push(error));
    status = 500;
    await protection.set(true);
    status = 200;
    await protection.set(true);
    expect(errors).toHaveLength(1);
    expect(requests).toHaveLength(2);
  });

  it('does nothing outside ECS', async () => {
    requests.length = 0;
    await createTaskProtection(undefined, () => undefined).set(true);
    expect(requests).toEqual([]);
  });
});
