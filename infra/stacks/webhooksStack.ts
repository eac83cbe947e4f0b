import { Duration, Stack, type StackProps } from 'aws-cdk-lib/core';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import {
  Choice,
  Condition,
  DefinitionBody,
  Errors,
  Fail,
  JsonPath,
  Pass,
  StateMachine,
  StateMachineType,
  Succeed,
  TaskInput,
  Wait,
  WaitTime,
} from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import { MAX_DELIVERY_HOLDS } from '../../shared/domain/deliveryOrder.js';
import { MAX_DELIVERY_ATTEMPTS } from '../../shared/domain/webhookDelivery.js';
import { sluiceFunction } from '../lambdaFunction.js';
import { acknowledge } from '../nag.js';
import type { SluiceNames } from '../names.js';
import { ROLE_PERMISSIONS } from '../routePermissions.js';

export interface WebhooksStackProps extends StackProps {
  names: SluiceNames;
  /** The Lambda bundle folder (infra/bundle.ts). */
  codeFolder: string;
}

/**
 * Webhook retries: one execution per delivery that its first attempt (made inline by the code
 * that made the job's move, shared/adapters/aws/inlineFirstAttempt.ts) did not end, or that was
 * held behind an earlier one. Named `<delivery id>-<attempts>`, started with `{ deliveryId,
 * waitSeconds }` (the retry's delay, or the hold), or `{ deliveryId }` alone by the sweeper:
 *
 *   Wait first? -- waitSeconds > 0 --> Start after a wait -> Wait -> Deliver
 *        `------- otherwise --------> Start -> Deliver
 *
 *   Deliver -> Count -> Choice: pending, under both bounds -> Wait -> Deliver
 *      |                        pending past a bound -> Fail (see below)
 *      | (Lambda error)         delivered or failed -> Succeed
 *      v
 *   Record failure -> Count     (its own error -> Fail, with that error as the cause)
 *
 * Deliver is the deliver Lambda (handlers/webhooks/deliver.ts) answering `{ state, waitSeconds,
 * attempted, held }`: one signed attempt, recorded on the delivery; or, while an earlier
 * delivery of the same job to the same URL is pending, a hold (no attempt, a short wait), which
 * keeps a URL's deliveries in order. A Deliver step that fails after its retries (a crash, a
 * timeout) is caught: Record failure invokes the same Lambda with the error, which records it
 * as a failed attempt, retried like any other. The Lambda caps a delivery at
 * MAX_DELIVERY_ATTEMPTS (ten) attempts; the state machine bounds the loop on its own as well,
 * counting attempts (`steps`) and holds (`holds`), so no answer of the Lambda can loop it for
 * ever. A delivery left pending by a Fail is the sweeper's to restart.
 */
export class WebhooksStack extends Stack {
  readonly deliverFunction: LambdaFunction;
  readonly stateMachine: StateMachine;

  constructor(scope: Construct, id: string, props: WebhooksStackProps) {
    super(scope, id, props);
    this.deliverFunction = sluiceFunction(this, 'Deliver', {
      names: props.names,
      codeFolder: props.codeFolder,
      entry: 'deliver',
      description: 'Sluice: one attempt of a webhook delivery',
      // The attempt's HTTP timeout (SLUICE_WEBHOOK_TIMEOUT_S, 10 s) plus the store's reads and writes.
      timeout: Duration.seconds(60),
      permissions: ROLE_PERMISSIONS.deliver,
    });

    const counters = { deliveryId: JsonPath.stringAt('$.deliveryId'), steps: 0, holds: 0 };
    const start = new Pass(this, 'Start', { parameters: counters });
    const startAfterWait = new Pass(this, 'Start after a wait', { parameters: { ...counters, waitSeconds: JsonPath.numberAt('$.waitSeconds') } });
    const deliver = new LambdaInvoke(this, 'Deliver attempt', {
      stateName: 'Deliver',
      lambdaFunction: this.deliverFunction,
      payloadResponseOnly: true,
      payload: TaskInput.fromObject({ deliveryId: JsonPath.stringAt('$.deliveryId') }),
      resultPath: '$.result',
    });
    const recordFailure = new LambdaInvoke(this, 'Record failure', {
      lambdaFunction: this.deliverFunction,
      payloadResponseOnly: true,
      payload: TaskInput.fromObject({ deliveryId: JsonPath.stringAt('$.deliveryId'), failure: JsonPath.objectAt('$.failure') }),
      resultPath: '$.result',
    });
    const unrecorded = new Fail(this, 'Failure not recorded', { errorPath: '$.unrecorded.Error', causePath: '$.unrecorded.Cause' });
    // A throttled invocation (the account's Lambda concurrency used up) is tried again before any Catch sees it.
    for (const task of [deliver, recordFailure])
      task.addRetry({ errors: ['Lambda.TooManyRequestsException'], interval: Duration.seconds(1), maxAttempts: 6, backoffRate: 2 });
    deliver.addCatch(recordFailure, { errors: [Errors.ALL], resultPath: '$.failure' });
    recordFailure.addCatch(unrecorded, { errors: [Errors.ALL], resultPath: '$.unrecorded' });
    const count = new Pass(this, 'Count', {
      parameters: {
        deliveryId: JsonPath.stringAt('$.deliveryId'),
        steps: JsonPath.mathAdd(JsonPath.numberAt('$.steps'), JsonPath.numberAt('$.result.attempted')),
        holds: JsonPath.mathAdd(JsonPath.numberAt('$.holds'), JsonPath.numberAt('$.result.held')),
        state: JsonPath.stringAt('$.result.state'),
        waitSeconds: JsonPath.numberAt('$.result.waitSeconds'),
      },
    });
    const wait = new Wait(this, 'Wait', { time: WaitTime.secondsPath('$.waitSeconds') });
    const exhausted = new Fail(this, 'Attempts exhausted', {
      error: 'AttemptsExhausted',
      cause: `Still pending after ${MAX_DELIVERY_ATTEMPTS} attempts or ${MAX_DELIVERY_HOLDS} holds`,
    });
    const done = new Succeed(this, 'Done');
    const pending = Condition.stringEquals('$.state', 'pending');
    const underBounds = Condition.and(
      pending,
      Condition.numberLessThan('$.steps', MAX_DELIVERY_ATTEMPTS),
      Condition.numberLessThan('$.holds', MAX_DELIVERY_HOLDS),
    );
    const route = new Choice(this, 'Pending?').when(underBounds, wait.next(deliver)).when(pending, exhausted).otherwise(done);
    recordFailure.next(count);
    deliver.next(count).next(route);
    // Rules are tried in order: a comparison on a field the input lacks would fail the execution.
    const first = new Choice(this, 'Wait first?')
      .when(Condition.not(Condition.isPresent('$.waitSeconds')), start.next(deliver))
      .when(Condition.numberGreaterThan('$.waitSeconds', 0), startAfterWait.next(wait))
      .otherwise(start);

    this.stateMachine = new StateMachine(this, 'Deliveries', {
      stateMachineName: props.names.stateMachine,
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromChainable(first),
      // Ten attempts with doubling waits, and holds behind earlier deliveries, end well within
      // this; it only stops a runaway execution.
      timeout: Duration.days(7),
    });
    acknowledge(this.stateMachine, [
      {
        id: 'AwsSolutions-SF1',
        reason:
          'Step Functions keeps every execution’s history (90 days) and each attempt is recorded on its delivery in the store; logging ALL events would bill each delivery’s every state transition again.',
      },
      {
        id: 'AwsSolutions-SF2',
        reason:
          'A delivery is one Lambda invocation per attempt with waits between; X-Ray traces would show nothing the execution history and the deliver Lambda’s logs do not.',
      },
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'CDK’s LambdaInvoke grant: the deliver function and its versions (<function ARN>:*), so an alias or version could be invoked; the function is the one named.',
        appliesTo: [{ regex: '/^Resource::<Deliver[0-9A-F]+\\.Arn>:\\*$/' }],
      },
    ]);
  }
}
