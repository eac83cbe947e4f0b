import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpFront } from '../../emulator/apiGateway.js';
import { Faults } from '../../emulator/faults.js';
import { LambdaService } from '../../emulator/lambda/lambdaService.js';
import { aLambdaFunction } from '../support/lambdaFunction.js';
import { processAlive } from '../support/processAlive.js';

/** A route function that writes (a file stands for DynamoDB) before it answers with its environment's pid. */
const HANDLER = `import { appendFileSync } from 'node:fs';
export const handler = async (event) => {
  appendFileSync(process.env.WRITES, event.rawPath + '\\n');
  return { statusCode: 200, body: JSON.stringify({ pid: process.pid }) };
};
`;

describe('a Lambda environment killed after its handler’s writes, before its answer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-killed-lambda-'));
  const writes = join(dir, 'writes.txt');
  const faults = new Faults({ servesApi: (name) => name === 'api' });
  let lambdas: LambdaService;
  let server: Server;
  let url = '';

  beforeAll(async () => {
    writeFileSync(join(dir, 'fn.mjs'), HANDLER);
    lambdas = new LambdaService(
      { PATH: process.env.PATH ?? '', WRITES: writes },
      () => join(dir, 'fn.log'),
      10,
      () => undefined,
      (name) => faults.killsAfterHandler(name),
    );
    for (const name of ['api', 'other']) lambdas.register(aLambdaFunction(name, dir));
    ({ server, url } = await startHttpFront(
      lambdas,
      [
        { method: 'POST', path: '/api', routeKey: 'POST /api', functionName: 'api' },
        { method: 'POST', path: '/other', routeKey: 'POST /other', functionName: 'other' },
      ],
      0,
      '127.0.0.1',
    ));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    lambdas.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = async (path: string) => {
    const answer = await fetch(`${url}${path}`, { method: 'POST' });
    return { status: answer.status, body: (await answer.json()) as { pid?: number; message?: string } };
  };

  it('loses the answer, not the write: API Gateway answers its integration failure, and the next request gets a new environment', async () => {
    const warm = await post('/api');
    faults.killLambdaAfterWrite(1);
    // API Gateway's answer to a function error on an HTTP API (emulator/apiGateway.ts).
    expect(await post('/api')).toEqual({ status: 500, body: { message: 'Internal Server Error' } });
    expect(
      readFileSync(writes, 'utf8')
        .split('\n')
        .filter((line) => line === '/api'),
    ).toHaveLength(2);
    expect(processAlive(warm.body.pid as number)).toBe(false);
    const next = await post('/api');
    expect(next.status).toBe(200);
    expect(next.body.pid).not.toBe(warm.body.pid);
    expect(faults.counts().lambdasKilled).toBe(1);
  });

  it('kills only the functions it names (by default those serving the API), and only as many invocations as asked', async () => {
    faults.killLambdaAfterWrite(2);
    expect((await post('/other')).status).toBe(200);
    expect((await post('/api')).status).toBe(500);
    expect((await post('/api')).status).toBe(500);
    expect((await post('/api')).status).toBe(200);
    faults.killLambdaAfterWrite(1, /^oth/);
    expect((await post('/api')).status).toBe(200);
    expect((await post('/other')).status).toBe(500);
    expect(faults.counts().lambdasKilled).toBe(4);
  });
});
