import type { LambdaFunctionSpec } from '../../emulator/lambda/lambdaService.js';

/** A Node function for the emulated Lambda: `fn.handler` of `codeDir`, 128 MB, a 5 s timeout, unless `overrides` says otherwise. */
export function aLambdaFunction(name: string, codeDir: string, overrides: Partial<LambdaFunctionSpec> = {}): LambdaFunctionSpec {
  return {
    name,
    arn: `arn:aws:lambda:us-east-1:123456789012:function:${name}`,
    codeDir,
    handler: 'fn.handler',
    environment: {},
    timeoutMs: 5000,
    memoryMb: 128,
    runtime: 'nodejs24.x',
    ...overrides,
  };
}
