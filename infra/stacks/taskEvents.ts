import { Duration } from 'aws-cdk-lib/core';
import { Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as LambdaTarget } from 'aws-cdk-lib/aws-events-targets';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { sluiceFunction } from '../lambdaFunction.js';
import { arns, type SluiceNames } from '../names.js';
import { ROLE_PERMISSIONS } from '../routePermissions.js';

export interface TaskEventsProps {
  names: SluiceNames;
  /** The Lambda bundle folder (bundleLambdaCode()). */
  codeFolder: string;
}

/**
 * The versions' stopped ECS tasks, to handlers/compute/onTaskStopped.ts: a version whose tasks
 * keep failing to start ends in error instead of being restarted by ECS forever.
 */
export class TaskEvents extends Construct {
  readonly function: LambdaFunction;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: TaskEventsProps) {
    super(scope, id);
    this.function = sluiceFunction(this, 'OnTaskStopped', {
      names: props.names,
      codeFolder: props.codeFolder,
      entry: 'onTaskStopped',
      description: 'Sluice: ends a version in error when its ECS tasks keep failing to start',
      timeout: Duration.minutes(1),
      permissions: ROLE_PERMISSIONS.taskEvents,
    });
    this.rule = new Rule(this, 'TaskStopped', {
      description: "Sluice: the versions' stopped tasks",
      eventPattern: {
        source: ['aws.ecs'],
        detailType: ['ECS Task State Change'],
        detail: { clusterArn: [arns.cluster(this, props.names.cluster)], lastStatus: ['STOPPED'], group: [{ prefix: 'service:v-' }] },
      },
      targets: [new LambdaTarget(this.function, { retryAttempts: 8, maxEventAge: Duration.hours(1) })],
    });
  }
}
