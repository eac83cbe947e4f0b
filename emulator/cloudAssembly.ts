import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib/core';
import { REPOSITORY_ROOT } from '../infra/bundle.js';
import { createSluiceStacks, type SluiceAppOptions } from '../infra/sluiceApp.js';

/** A CloudFormation resource as the synthesized template holds it. */
export interface Resource {
  Type: string;
  Properties?: Record<string, any>;
}

export interface Template {
  Resources: Record<string, Resource>;
  Outputs?: Record<string, { Value: unknown; Export?: { Name: string } }>;
}

/** A resource found in the assembly, with the stack that holds it. */
export interface Located {
  stack: string;
  logicalId: string;
  resource: Resource;
}

export interface CloudAssembly {
  /** The cdk.out folder: templates and assets (`asset.<hash>/`). */
  dir: string;
  stacks: Record<string, Template>;
  /** Every resource of a CloudFormation type, in every stack. */
  ofType(type: string): Located[];
  /** The folder of a code asset named by its S3 key (`<hash>.zip`). */
  assetDir(s3Key: string): string;
}

/**
 * Synthesizes the CDK app exactly as `cdk deploy` would (same stacks, same bundles) into
 * `outdir`, and reads the templates back: the emulator deploys what the templates say, so a
 * route, environment variable or state machine that the templates get wrong fails here too.
 */
export function synthesize(outdir: string, prefix: string, options: Omit<SluiceAppOptions, 'prefix'> = {}): CloudAssembly {
  mkdirSync(outdir, { recursive: true });
  const app = new App({ outdir });
  createSluiceStacks(app, { ...options, prefix });
  const assembly = app.synth();
  const stacks: Record<string, Template> = {};
  for (const stack of assembly.stacks) stacks[stack.stackName] = JSON.parse(readFileSync(join(outdir, stack.templateFile), 'utf8')) as Template;
  // The Lambda runtime provides the AWS SDK v3; here the repository's node_modules stands in for it.
  const modules = join(outdir, 'node_modules');
  if (!existsSync(modules)) symlinkSync(join(REPOSITORY_ROOT, 'node_modules'), modules, 'dir');
  return {
    dir: outdir,
    stacks,
    ofType: (type) =>
      Object.entries(stacks).flatMap(([stack, template]) =>
        Object.entries(template.Resources)
          .filter(([, resource]) => resource.Type === type)
          .map(([logicalId, resource]) => ({ stack, logicalId, resource })),
      ),
    assetDir: (s3Key) => join(outdir, `asset.${s3Key.replace(/\.zip$/, '')}`),
  };
}
