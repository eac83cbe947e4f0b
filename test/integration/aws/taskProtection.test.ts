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

  const MINUTE = 60_000;
  const bodies = () => requests.map((request) => request.body);

  it('protects a task from its start for the scale-down window, so a task started for a job is kept until it takes it', async () => {
    requests.length = 0;
    const protection = createTaskProtection(agentUri, () => undefined);
    await protection.update(false, 300, 0);
    await protection.update(false, 300, 10_000);
    expect(requests).toEqual([{ method: 'PUT', url: '/task-protection/v1/state', body: { ProtectionEnabled: true, ExpiresInMinutes: 5 } }]);
  });

  it('holds a busy task for an hour, renewed while it stays busy, whatever the window', async () => {
    requests.length = 0;
    const protection = createTaskProtection(agentUri, () => undefined);
    await protection.update(false, 60, 0);
    await protection.update(true, 60, 1000);
    await protection.update(true, 60, 20 * MINUTE);
    await protection.update(true, 60, 31 * MINUTE);
    expect(bodies()).toEqual([
      { ProtectionEnabled: true, ExpiresInMinutes: 1 },
      { ProtectionEnabled: true, ExpiresInMinutes: 60 },
      { ProtectionEnabled: true, ExpiresInMinutes: 60 },
    ]);
  });

  it('releases an idle task once the window after its last job has passed, and not before', async () => {
    requests.length = 0;
    const protection = createTaskProtection(agentUri, () => undefined);
    await protection.update(true, 90, 0);
    await protection.update(false, 90, 1000);
    await protection.update(false, 90, 90_000);
    await protection.update(false, 90, 91_001);
    await protection.update(false, 90, 200_000);
    expect(bodies()).toEqual([{ ProtectionEnabled: true, ExpiresInMinutes: 60 }, { ProtectionEnabled: false }]);
  });

  it('extends the hold to the end of a window longer than a busy hold', async () => {
    requests.length = 0;
    const protection = createTaskProtection(agentUri, () => undefined);
    await protection.update(true, 7200, 0);
    await protection.update(false, 7200, 1000);
    expect(bodies()).toEqual([
      { ProtectionEnabled: true, ExpiresInMinutes: 60 },
      { ProtectionEnabled: true, ExpiresInMinutes: 120 },
    ]);
  });

  it('with a window of 0, releases a task as soon as it is idle', async () => {
    requests.length = 0;
    const protection = createTaskProtection(agentUri, () => undefined);
    await protection.update(false, 0, 0);
    await protection.update(true, 0, 1);
    await protection.update(false, 0, 2);
    expect(bodies()).toEqual([{ ProtectionEnabled: true, ExpiresInMinutes: 60 }, { ProtectionEnabled: false }]);
  });

  it('reports a refusal and tries again at the next call', async () => {
    requests.length = 0;
    const errors: unknown[] = [];
    const protection = createTaskProtection(agentUri, (error) => errors.push(error));
    status = 500;
    await protection.update(true, 60, 0);
    status = 200;
    await protection.update(true, 60, 1);
    expect(errors).toHaveLength(1);
    expect(requests).toHaveLength(2);
  });

  it('does nothing outside ECS', async () => {
    requests.length = 0;
    await createTaskProtection(undefined, () => undefined).update(true, 60, 0);
    expect(requests).toEqual([]);
  });
});
