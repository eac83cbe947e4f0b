import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CloudAssembly } from '../../emulator/cloudAssembly.js';
import { EventBridge } from '../../emulator/eventBridge.js';
import { LambdaService, type LambdaFunctionSpec } from '../../emulator/lambda/lambdaService.js';
import { until } from '../e2e/support/testService.js';

/** Records each event it receives; a `hold` invocation keeps its execution a while. */
const HANDLER = `import { appendFileSync } from 'node:fs';
export const handler = async (event) => {
  if (event.holdMs) return new Promise((resolve) => setTimeout(resolve, event.holdMs));
  appendFileSync(process.env.SEEN, event.detail.n + '\\n');
};
`;

const spec = (name: string, dir: string): LambdaFunctionSpec => ({
  name,
  arn: `arn:aws:lambda:us-east-1:123456789012:function:${name}`,
  codeDir: dir,
  handler: 'fn.handler',
  environment: { SEEN: join(dir, 'seen.txt') },
  timeoutMs: 10_000,
  memoryMb: 128,
  runtime: 'nodejs24.x',
});

/** One rule: events from `test` go to `target`. */
const assembly = {
  ofType: (type: string) =>
    type === 'AWS::Events::Rule'
      ? [
          {
            stack: 's',
            logicalId: 'Rule',
            resource: {
              Type: type,
              Properties: { Name: 'rule', EventPattern: { source: ['test'] }, Targets: [{ Arn: 'arn:aws:lambda:us-east-1:123456789012:function:target' }] },
            },
          },
        ]
      : [],
} as unknown as CloudAssembly;

describe('a throttled asynchronous invocation (EventBridge to Lambda)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-throttled-'));
  let lambdas: LambdaService;

  beforeAll(() => {
    writeFileSync(join(dir, 'fn.mjs'), HANDLER);
    appendFileSync(join(dir, 'seen.txt'), '');
    // An account of one execution, held by another function while the event arrives.
    lambdas = new LambdaService({ PATH: process.env.PATH ?? '' }, () => join(dir, 'fn.log'), 1);
    lambdas.register(spec('target', dir));
    lambdas.register(spec('other', dir));
  });
  afterAll(() => {
    lambdas.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is delivered once the account has an execution to give, as Lambda’s event queue retries throttles', async () => {
    const bus = new EventBridge(
      assembly,
      (_stack, value) => value,
      lambdas,
      () => undefined,
    );
    const held = lambdas.invoke('other', { holdMs: 1500 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    bus.put({ source: 'test', 'detail-type': 'Test', detail: { n: 1 } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Throttled while the account's one execution is taken: not delivered, not given up either.
    expect(readFileSync(join(dir, 'seen.txt'), 'utf8')).toBe('');
    await held;
    await until(async () => readFileSync(join(dir, 'seen.txt'), 'utf8') === '1\n', 10_000, 100);
    bus.stop();
  }, 20_000);
});
