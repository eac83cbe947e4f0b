import { Duration, Stack, type StackProps } from 'aws-cdk-lib/core';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Choice, Condition, DefinitionBody, Fail, JsonPath, Pass, StateMachine, StateMachineType, Succeed, TaskInput, Wait, WaitTime } from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import { MAX_DELIVERY_ATTEMPTS } from '../../shared/domain/webhookDelivery.js';
import { sluiceFunction } from '../lambdaFunction.js';
import type { SluiceNames } from '../names.js';
import { ROLE_PERMISSIONS } from '../routePermissions.js';

export interface WebhooksStackProps extends StackProps {
  names: SluiceNames;
  /** The Lambda bundle folder (infra/bundle.ts). */
  codeFolder: string;
}

/**
 * Webhook retries: one execution per delivery (named after it, started by the service's
 * Step Functions scheduler with `{ deliveryId }`):
 *
 *   Start -> Deliver -> Count -> Choice: pending and fewer than ten Deliver steps -> Wait -> Deliver
 *                                        pending after ten steps -> Fail (cannot happen, see below)
 *                                        delivered or failed -> Succeed
 *
 * Deliver is the deliver Lambda (handlers/webhooks/deliver.ts): one signed attempt, recorded
 * on the delivery, answering `{ state, waitSeconds }`. The Lambda itself caps a delivery at
 * MAX_DELIVERY_ATTEMPTS (ten) attempts: it answers `failed` after the tenth. The state machine
 * bounds the loop on its own as well, with a step counter (`steps`), so no answer of the
 * Lambda can make it run Deliver more than ten times. (Deliver's default retries on Lambda
 * service errors re-run the same step; they are not steps.)
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

    const start = new Pass(this, 'Start', { parameters: { deliveryId: JsonPath.stringAt('$.deliveryId'), steps: 0 } });
    const deliver = new LambdaInvoke(this, 'Deliver attempt', {
      stateName: 'Deliver',
      lambdaFunction: this.deliverFunction,
      payloadResponseOnly: true,
      payload: TaskInput.fromObject({ deliveryId: JsonPath.stringAt('$.deliveryId') }),
      resultPath: '$.result',
    });
    const count = new Pass(this, 'Count', {
      parameters: {
        deliveryId: JsonPath.stringAt('$.deliveryId'),
        steps: JsonPath.mathAdd(JsonPath.numberAt('$.steps'), 1),
        state: JsonPath.stringAt('$.result.state'),
        waitSeconds: JsonPath.numberAt('$.result.waitSeconds'),
      },
    });
    const wait = new Wait(this, 'Wait', { time: WaitTime.secondsPath('$.waitSeconds') });
    const exhausted = new Fail(this, 'Attempts exhausted', { error: 'AttemptsExhausted', cause: `Still pending after ${MAX_DELIVERY_ATTEMPTS} Deliver steps` });
    const done = new Succeed(this, 'Done');
    const pending = Condition.stringEquals('$.state', 'pending');
    const route = new Choice(this, 'Pending?')
      .when(Condition.and(pending, Condition.numberLessThan('$.steps', MAX_DELIVERY_ATTEMPTS)), wait.next(deliver))
      .when(pending, exhausted)
      .otherwise(done);

    this.stateMachine = new StateMachine(this, 'Deliveries', {
      stateMachineName: props.names.stateMachine,
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromChainable(start.next(deliver).next(count).next(route)),
      // Ten attempts with doubling waits end well within this; it only stops a runaway execution.
      timeout: Duration.days(7),
    });
  }
}
