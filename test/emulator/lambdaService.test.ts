import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as wait } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LambdaInvocationError, LambdaService } from '../../emulator/lambda/lambdaService.js';

const HANDLER = `import { appendFileSync } from 'node:fs';
export const handler = async (event) => {
  if (event.hang) return new Promise(() => undefined);
  if (event.fail) throw new TypeError('bad event');
  // Work left running after the handler returns, as a fire-and-forget call would be.
  if (event.file) setTimeout(() => appendFileSync(event.file, 'late\\n'), 100);
  return { pid: process.pid, answer: event.value * 2 };
};
`;

describe('the emulated Lambda runtime', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-lambda-'));
  let lambdas: LambdaService;

  beforeAll(() => {
    writeFileSync(join(dir, 'fn.mjs'), HANDLER);
    lambdas = new LambdaService({ PATH: process.env.PATH ?? '' }, () => join(dir, 'fn.log'));
    lambdas.register({
      name: 'fn',
      arn: 'arn:aws:lambda:us-east-1:123456789012:function:fn',
      codeDir: dir,
      handler: 'fn.handler',
      environment: {},
      timeoutMs: 1000,
      memoryMb: 128,
      runtime: 'nodejs24.x',
    });
  });
  afterAll(() => {
    lambdas.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers with the handler’s result', async () => {
    expect(await lambdas.invoke('fn', { value: 21 })).toMatchObject({ answer: 42 });
  });

  it('freezes the environment the moment its handler returns: work left running waits for the next invocation', async () => {
    const file = join(dir, 'late.txt');
    const first = (await lambdas.invoke('fn', { value: 1, file })) as { pid: number };
    await wait(500);
    expect(existsSync(file)).toBe(false);
    const second = (await lambdas.invoke('fn', { value: 2 })) as { pid: number };
    expect(second.pid).toBe(first.pid);
    // Thawed for the second invocation, the first one's timer ran.
    expect(readFileSync(file, 'utf8')).toBe('late\n');
  });

  it('runs concurrent invocations in separate environments', async () => {
    const [a, b] = (await Promise.all([lambdas.invoke('fn', { value: 1 }), lambdas.invoke('fn', { value: 2 })])) as { pid: number }[];
    expect(a?.pid).not.toBe(b?.pid);
  });

  it('reports a handler’s exception as a function error named by its type', async () => {
    const error = await lambdas.invoke('fn', { fail: true }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LambdaInvocationError);
    expect(error).toMatchObject({ errorType: 'TypeError', message: expect.stringContaining('bad event') });
  });

  it('kills an invocation past the function’s timeout', async () => {
    const error = await lambdas.invoke('fn', { hang: true }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ errorType: 'Sandbox.Timedout' });
    expect(await lambdas.invoke('fn', { value: 5 })).toMatchObject({ answer: 10 });
  });

  it('refuses a payload over 6 MB, as Lambda does', async () => {
    const error = await lambdas.invoke('fn', { value: 1, padding: 'x'.repeat(6 * 1024 * 1024 + 1) }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ errorType: 'RequestEntityTooLargeException' });
  });

  it('refuses an invocation once closed, without starting an environment or touching its log folder', async () => {
    const gone = mkdtempSync(join(tmpdir(), 'sluice-lambda-closed-'));
    const closed = new LambdaService({ PATH: process.env.PATH ?? '' }, () => join(gone, 'logs', 'fn.log'));
    closed.register({
      name: 'fn',
      arn: 'arn:aws:lambda:us-east-1:123456789012:function:fn',
      codeDir: dir,
      handler: 'fn.handler',
      environment: {},
      timeoutMs: 1000,
      memoryMb: 128,
      runtime: 'nodejs24.x',
    });
    closed.close();
    rmSync(gone, { recursive: true, force: true });
    const error = await closed.invoke('fn', { value: 1 }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ errorType: 'ServiceException' });
  });
});
