import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CloudAssembly } from './cloudAssembly.js';
import type { Resolver } from './intrinsics.js';
import type { LambdaFunctionSpec } from './lambda/lambdaService.js';

/**
 * The Lambda functions the templates declare, as Lambda would run them: their code asset,
 * handler, environment (intrinsics resolved), timeout, memory and reserved concurrency. Functions whose code is not
 * one of the app's assets (none today) are left out.
 */
export function lambdaFunctions(assembly: CloudAssembly, resolve: Resolver): LambdaFunctionSpec[] {
  return assembly.ofType('AWS::Lambda::Function').flatMap(({ stack, logicalId, resource }) => {
    const props = resource.Properties ?? {};
    const key = props.Code?.S3Key as string | undefined;
    if (!key) return [];
    const codeDir = assembly.assetDir(key);
    const handler = String(props.Handler);
    if (!existsSync(join(codeDir, `${handler.split('.')[0]}.mjs`))) return [];
    const name = String(resolve(stack, { Ref: logicalId }));
    return [
      {
        name,
        arn: String(resolve(stack, { 'Fn::GetAtt': [logicalId, 'Arn'] })),
        codeDir,
        handler,
        environment: resolve(stack, props.Environment?.Variables ?? {}) as Record<string, string>,
        timeoutMs: Number(props.Timeout ?? 3) * 1000,
        memoryMb: Number(props.MemorySize ?? 128),
        runtime: String(props.Runtime ?? 'nodejs24.x'),
        ...(props.ReservedConcurrentExecutions === undefined ? {} : { reservedConcurrency: Number(props.ReservedConcurrentExecutions) }),
      },
    ];
  });
}
