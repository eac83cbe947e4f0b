import { ArnFormat, Aws, Stack } from 'aws-cdk-lib/core';
import type { IConstruct } from 'constructs';
import { TABLES, tableName, type TableId } from '../shared/adapters/aws/dynamodb/tables.js';
import { MACHINE_TYPES, type MachineType } from './machineTypes.js';

/**
 * The physical names of a deployment's resources, all derived from one prefix (the context's
 * `sluice:tablePrefix`). The service finds its resources by these names (the DLQ is
 * `<prefix>dlq`, a version's queue `<prefix>v-<version id>`, a machine type's capacity
 * provider `<prefix><machine type>`), and the stacks use them instead of cross-stack
 * references wherever they can: a stack can then grant access to, or pass the name of, a
 * resource of a stack deployed after it, which keeps the stacks free of reference cycles
 * (the API needs the build project; the build-event Lambda needs the API's URL).
 */
export interface SluiceNames {
  prefix: string;
  table(id: TableId): string;
  /** Every per-version queue matches this (queues are created at deploy time by the service). */
  versionQueuePattern: string;
  deadLetterQueue: string;
  cluster: string;
  capacityProvider(machineType: MachineType): string;
  stateMachine: string;
  project: string;
  repository: string;
  workerLogGroup: string;
  /** Unique per account and region: `<prefix>artifacts-<account>-<region>` (tokens until deploy). */
  bucket: string;
}

/** Lowercase letters, digits and dashes (S3 bucket names allow nothing else), at most 20 characters. */
const PREFIX_PATTERN = /^[a-z][a-z0-9-]{0,19}$/;

export function validatePrefix(prefix: string): string {
  if (!PREFIX_PATTERN.test(prefix)) {
    throw new Error(
      `sluice:tablePrefix "${prefix}" must be 1 to 20 lowercase letters, digits or dashes, starting with a letter (it names S3 buckets, queues and tables)`,
    );
  }
  if (/^(aws|ecs|fargate)/.test(prefix))
    throw new Error(`sluice:tablePrefix "${prefix}" must not start with aws, ecs or fargate (ECS capacity provider names cannot)`);
  return prefix;
}

export function sluiceNames(prefix: string): SluiceNames {
  validatePrefix(prefix);
  return {
    prefix,
    table: (id) => tableName(prefix, TABLES[id]),
    versionQueuePattern: `${prefix}v-*`,
    deadLetterQueue: `${prefix}dlq`,
    cluster: `${prefix}cluster`,
    capacityProvider: (machineType) => `${prefix}${machineType}`,
    stateMachine: `${prefix}webhook-deliveries`,
    project: `${prefix}image-build`,
    repository: `${prefix}functions`,
    workerLogGroup: `/sluice/${prefix}workers`,
    bucket: `${prefix}artifacts-${Aws.ACCOUNT_ID}-${Aws.REGION}`,
  };
}

/** Machine type -> capacity provider name, as the service reads it from SLUICE_CAPACITY_PROVIDERS. */
export function capacityProviderNames(names: SluiceNames): Record<MachineType, string> {
  return Object.fromEntries(MACHINE_TYPES.map((type) => [type, names.capacityProvider(type)])) as Record<MachineType, string>;
}

/** ARNs of named resources, in the stack of `scope` (pseudo parameters, not cross-stack references). */
export const arns = {
  table: (scope: IConstruct, name: string) => Stack.of(scope).formatArn({ service: 'dynamodb', resource: 'table', resourceName: name }),
  queue: (scope: IConstruct, name: string) => Stack.of(scope).formatArn({ service: 'sqs', resource: name, arnFormat: ArnFormat.NO_RESOURCE_NAME }),
  bucket: (scope: IConstruct, name: string) =>
    Stack.of(scope).formatArn({ service: 's3', region: '', account: '', resource: name, arnFormat: ArnFormat.NO_RESOURCE_NAME }),
  stateMachine: (scope: IConstruct, name: string) =>
    Stack.of(scope).formatArn({ service: 'states', resource: 'stateMachine', resourceName: name, arnFormat: ArnFormat.COLON_RESOURCE_NAME }),
  /** Every execution of the named state machine. */
  executions: (scope: IConstruct, stateMachine: string) =>
    Stack.of(scope).formatArn({ service: 'states', resource: 'execution', resourceName: `${stateMachine}:*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME }),
  project: (scope: IConstruct, name: string) => Stack.of(scope).formatArn({ service: 'codebuild', resource: 'project', resourceName: name }),
  repository: (scope: IConstruct, name: string) => Stack.of(scope).formatArn({ service: 'ecr', resource: 'repository', resourceName: name }),
  /** ECS services of the cluster whose names match `servicePattern`. */
  ecsServices: (scope: IConstruct, cluster: string, servicePattern: string) =>
    Stack.of(scope).formatArn({ service: 'ecs', resource: 'service', resourceName: `${cluster}/${servicePattern}` }),
  cluster: (scope: IConstruct, cluster: string) => Stack.of(scope).formatArn({ service: 'ecs', resource: 'cluster', resourceName: cluster }),
  logGroup: (scope: IConstruct, name: string) =>
    Stack.of(scope).formatArn({ service: 'logs', resource: 'log-group', resourceName: `${name}:*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME }),
  alarms: (scope: IConstruct, namePattern: string) =>
    Stack.of(scope).formatArn({ service: 'cloudwatch', resource: 'alarm', resourceName: namePattern, arnFormat: ArnFormat.COLON_RESOURCE_NAME }),
};

/** `<account>.dkr.ecr.<region>.<url suffix>/<repository>`: what images are tagged with. */
export function repositoryUri(scope: IConstruct, names: SluiceNames): string {
  const stack = Stack.of(scope);
  return `${stack.account}.dkr.ecr.${stack.region}.${stack.urlSuffix}/${names.repository}`;
}
