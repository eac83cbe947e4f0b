import { Duration } from 'aws-cdk-lib/core';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as LambdaTarget } from 'aws-cdk-lib/aws-events-targets';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { sluiceFunction } from '../lambdaFunction.js';
import type { SluiceNames } from '../names.js';
import { ROLE_PERMISSIONS } from '../routePermissions.js';

export interface SweeperScheduleProps {
  names: SluiceNames;
  /** The Lambda bundle folder (bundleLambdaCode()). */
  codeFolder: string;
}

/**
 * The sweeper (handlers/sweeper/sweep.ts) every minute: it starts again what a lost call left
 * behind (a version stuck in queued, a delivery whose run never started or ended early) and
 * ends queued jobs before SQS drops their message. Its timeout is under the schedule's period,
 * so two sweeps never overlap (no reserved concurrency: a new account may have none to spare).
 */
export class SweeperSchedule extends Construct {
  readonly sweepFunction: LambdaFunction;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: SweeperScheduleProps) {
    super(scope, id);
    this.sweepFunction = sluiceFunction(this, 'Sweep', {
      names: props.names,
      codeFolder: props.codeFolder,
      entry: 'sweep',
      description: 'Sluice: every minute, picks up builds, webhook deliveries and jobs that a lost call left behind',
      timeout: Duration.seconds(50),
      permissions: ROLE_PERMISSIONS.sweeper,
    });
    this.rule = new Rule(this, 'EveryMinute', {
      description: 'Sluice: runs the sweeper',
      schedule: Schedule.rate(Duration.minutes(1)),
      // A missed sweep is made up by the next one a minute later.
      targets: [new LambdaTarget(this.sweepFunction, { retryAttempts: 0 })],
    });
  }
}
