import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpFront } from '../../emulator/apiGateway.js';
import { LambdaService, type LambdaFunctionSpec } from '../../emulator/lambda/lambdaService.js';

/** Answers after `waitMs`, as a waiter holding its execution would. */
const HANDLER = `export const handler = async (event) => {
  const waitMs = Number(event.waitMs ?? event.queryStringParameters?.waitMs ?? 0);
  await new Promise((resolve) => setTimeout(resolve, waitMs));
  return { statusCode: 200, body: 'done' };
};
`;

const dir = mkdtempSync(join(tmpdir(), 'sluice-concurrency-'));
const spec = (name: string, reservedConcurrency?: number): LambdaFunctionSpec => ({
  name,
  arn: `arn:aws:lambda:us-east-1:123456789012:function:${name}`,
  codeDir: dir,
  handler: 'fn.handler',
  environment: {},
  timeoutMs: 10_000,
  memoryMb: 128,
  runtime: 'nodejs24.x',
  reservedConcurrency,
});
beforeAll(() => writeFileSync(join(dir, 'fn.mjs'), HANDLER));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const outcome = (invocation: Promise<unknown>) =>
  invocation.then(
    () => 'ran',
    (error: { errorType?: string }) => error.errorType ?? String(error),
  );

describe('the emulated Lambda’s concurrency: the account’s limit and reserved concurrency', () => {
  const services: LambdaService[] = [];
  const lambdasWith = (accountLimit: number, ...functions: LambdaFunctionSpec[]) => {
    const lambdas = new LambdaService({ PATH: process.env.PATH ?? '' }, () => join(dir, 'fn.log'), accountLimit);
    for (const fn of functions) lambdas.register(fn);
    services.push(lambdas);
    return lambdas;
  };

  afterAll(() => {
    for (const lambdas of services) lambdas.close();
  });

  it('throttles an invocation past the account’s limit with TooManyRequestsException, and runs it again once one ends', async () => {
    const lambdas = lambdasWith(2, spec('fn'));
    const held = [lambdas.invoke('fn', { waitMs: 1500 }), lambdas.invoke('fn', { waitMs: 1500 })];
    expect(await outcome(lambdas.invoke('fn', {}))).toBe('TooManyRequestsException');
    await Promise.all(held);
    expect(await outcome(lambdas.invoke('fn', {}))).toBe('ran');
  }, 20_000);

  it('lets a reserved function run up to its reservation and no more, and keeps that much out of the others’ pool', async () => {
    // 5 in the account, 2 reserved for the waiter: the others share 3.
    const lambdas = lambdasWith(5, spec('waiter', 2), spec('push'), spec('read'));
    const waiters = [lambdas.invoke('waiter', { waitMs: 2000 }), lambdas.invoke('waiter', { waitMs: 2000 })];
    expect(await outcome(lambdas.invoke('waiter', {}))).toBe('TooManyRequestsException');
    // Waiters at their reservation take nothing from the others: three run at once, a fourth is throttled.
    const others = [lambdas.invoke('push', { waitMs: 1000 }), lambdas.invoke('read', { waitMs: 1000 }), lambdas.invoke('push', { waitMs: 1000 })];
    expect(await outcome(lambdas.invoke('read', {}))).toBe('TooManyRequestsException');
    expect(await Promise.all(others.map(outcome))).toEqual(['ran', 'ran', 'ran']);
    await Promise.all(waiters);
  }, 20_000);

  it('keeps unreserved functions from using a reserved function’s executions', async () => {
    const lambdas = lambdasWith(3, spec('waiter', 1), spec('push'));
    const pushes = [lambdas.invoke('push', { waitMs: 1500 }), lambdas.invoke('push', { waitMs: 1500 })];
    expect(await outcome(lambdas.invoke('push', {}))).toBe('TooManyRequestsException');
    expect(await outcome(lambdas.invoke('waiter', {}))).toBe('ran');
    await Promise.all(pushes);
  }, 20_000);

  it('refuses reservations that leave nothing unreserved', () => {
    expect(() => lambdasWith(4, spec('a', 2), spec('b', 2))).toThrow(/leaves no unreserved concurrency/);
  });
});

describe('a throttled function, as its HTTP fronts answer', () => {
  let lambdas: LambdaService;
  const servers: Server[] = [];
  let apiUrl = '';
  let functionUrl = '';

  beforeAll(async () => {
    lambdas = new LambdaService({ PATH: process.env.PATH ?? '' }, () => join(dir, 'fn.log'), 10);
    lambdas.register(spec('route', 1));
    lambdas.register(spec('awaitLong', 1));
    const api = await startHttpFront(lambdas, [{ method: 'GET', path: '/v2/jobs', routeKey: 'GET /v2/jobs', functionName: 'route' }], 0, '127.0.0.1');
    const url = await startHttpFront(lambdas, { functionName: 'awaitLong' }, 0, '127.0.0.1');
    servers.push(api.server, url.server);
    apiUrl = api.url;
    functionUrl = url.url;
  });
  afterAll(async () => {
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    lambdas.close();
  });

  it('through the API Gateway HTTP API: 500 Internal Server Error (API Gateway’s answer to Lambda’s 429)', async () => {
    const held = fetch(`${apiUrl}/v2/jobs?waitMs=1500`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const throttled = await fetch(`${apiUrl}/v2/jobs`);
    expect(throttled.status).toBe(500);
    expect(await throttled.json()).toEqual({ message: 'Internal Server Error' });
    expect((await held).status).toBe(200);
  }, 20_000);

  it('through a function URL: 429 Rate Exceeded', async () => {
    const held = fetch(`${functionUrl}/v2/jobs/j/await?waitMs=1500`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const throttled = await fetch(`${functionUrl}/v2/jobs/j/await`);
    expect(throttled.status).toBe(429);
    expect(await throttled.json()).toEqual({ Message: 'Rate Exceeded.' });
    expect((await held).status).toBe(200);
  }, 20_000);
});
