import { RemovalPolicy, Stack, type Duration } from 'aws-cdk-lib/core';
import { PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { LambdaEntry } from './bundle.js';
import { grantPermissions, type DeployRoles } from './grants.js';
import { arns, capacityProviderNames, repositoryUri, type SluiceNames } from './names.js';
import type { Permissions } from './routePermissions.js';

/**
 * What every Lambda of the service is told, through its environment (read by
 * shared/app/awsConfig.ts and shared/config.ts): where the tables, bucket, state machine,
 * build project, image repository and cluster are. All are names, so any stack can say them.
 */
export function serviceEnvironment(scope: Construct, names: SluiceNames): Record<string, string> {
  return {
    SLUICE_MODE: 'aws',
    SLUICE_TABLE_PREFIX: names.prefix,
    SLUICE_BUCKET: names.bucket,
    SLUICE_STATE_MACHINE_ARN: arns.stateMachine(scope, names.stateMachine),
    SLUICE_CODEBUILD_PROJECT: names.project,
    SLUICE_REPOSITORY_URI: repositoryUri(scope, names),
    SLUICE_CLUSTER: names.cluster,
    SLUICE_CAPACITY_PROVIDERS: JSON.stringify(capacityProviderNames(names)),
  };
}

/** The one code asset of a stack: the shared bundle folder (see infra/bundle.ts). */
const stackCode = new WeakMap<Stack, Code>();

export function lambdaCode(scope: Construct, folder: string): Code {
  const stack = Stack.of(scope);
  let code = stackCode.get(stack);
  if (!code) {
    code = Code.fromAsset(folder);
    stackCode.set(stack, code);
  }
  return code;
}

export interface SluiceFunctionProps {
  names: SluiceNames;
  /** The bundle folder (bundleLambdaCode()). */
  codeFolder: string;
  entry: LambdaEntry;
  description: string;
  timeout: Duration;
  memorySize?: number;
  /** Reserved concurrency: at most this many at once, kept out of the account's shared pool (none when absent). */
  reservedConcurrentExecutions?: number;
  /** Added to the service environment. */
  environment?: Record<string, string>;
  permissions: Permissions;
  deployRoles?: DeployRoles;
}

/** The Lambda runtime of every function: the newest Node.js that aws-cdk-lib offers (the bundle targets Node 22, which it runs). */
export const LAMBDA_RUNTIME = Runtime.NODEJS_24_X;

/**
 * A Node.js function of the shared bundle, with its log group and exactly the given
 * permissions. Its role writes its own log group only (an inline policy, in place of the AWS
 * managed AWSLambdaBasicExecutionRole, which allows any log group of the account).
 */
export function sluiceFunction(scope: Construct, id: string, props: SluiceFunctionProps): LambdaFunction {
  const logGroup = new LogGroup(scope, `${id}Logs`, { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
  const role = new Role(scope, `${id}Role`, {
    assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    inlinePolicies: {
      logs: new PolicyDocument({
        statements: [new PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logGroup.logGroupArn] })],
      }),
    },
  });
  const fn = new LambdaFunction(scope, id, {
    runtime: LAMBDA_RUNTIME,
    role,
    architecture: Architecture.ARM_64,
    code: lambdaCode(scope, props.codeFolder),
    handler: `${props.entry}.handler`,
    description: props.description,
    memorySize: props.memorySize ?? 512,
    timeout: props.timeout,
    reservedConcurrentExecutions: props.reservedConcurrentExecutions,
    environment: { ...serviceEnvironment(scope, props.names), ...props.environment },
    logGroup,
  });
  grantPermissions(role, props.names, props.permissions, props.deployRoles);
  return fn;
}
