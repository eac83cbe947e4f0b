import { DescribeExecutionCommand, StartExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import type { Micros } from '../../domain/time.js';
import type { WebhookDelivery } from '../../domain/webhookDelivery.js';
import type { DeliveryScheduler } from '../../ports/deliveryScheduler.js';

export interface StepFunctionsSchedulerOptions {
  client: SFNClient;
  /** The webhook state machine: a Wait/Choice loop that attempts the delivery until it ends. */
  stateMachineArn: string;
  /** A run that could not start: the delivery stays pending, for the sweeper. */
  onError: (error: unknown, deliveryId: string) => void;
}

/** The Step Functions scheduler, and what the inline first attempt (inlineFirstAttempt.ts) builds on. */
export interface StepFunctionsScheduler extends DeliveryScheduler {
  /**
   * Starts the delivery's run, waiting `waitSeconds` before its first step (0: at once). Resolves
   * true when started now, false when an execution of that name exists (running or not); rejects
   * when it cannot start.
   */
  start(delivery: WebhookDelivery, waitSeconds: number): Promise<boolean>;
}

/**
 * An execution's name: the delivery's id and the number of attempts it had when the run
 * started. Names are unique per state machine (for 90 days, ended executions included), so
 * scheduling a delivery twice starts it once; and a delivery whose run ended early (recorded
 * as an attempt by the sweeper) gets a new name, so it can run again.
 */
export const executionName = (delivery: WebhookDelivery): string => `${delivery.id}-${delivery.attempts.length}`;

/** Whole seconds until a pending delivery's next attempt is due, at least 1 (a Wait state's unit). */
export const secondsUntilDue = (delivery: WebhookDelivery, now: Micros): number => Math.max(1, Math.ceil((delivery.nextAttemptAt - now) / 1e6));

const isAlreadyStarted = (error: unknown) => (error as { name?: string }).name === 'ExecutionAlreadyExists';

/**
 * One state machine execution per delivery, started with `{ deliveryId }`, and `waitSeconds`
 * when it must wait before its first attempt. StartExecution is awaited: a Lambda's process
 * freezes when its handler returns, so a call left running might never be sent.
 * ExecutionAlreadyExists means the delivery is already on its way.
 */
export function createStepFunctionsScheduler(options: StepFunctionsSchedulerOptions): StepFunctionsScheduler {
  const { client, stateMachineArn, onError } = options;

  const start = async (delivery: WebhookDelivery, waitSeconds: number): Promise<boolean> => {
    const input = waitSeconds > 0 ? { deliveryId: delivery.id, waitSeconds } : { deliveryId: delivery.id };
    try {
      await client.send(new StartExecutionCommand({ stateMachineArn, name: executionName(delivery), input: JSON.stringify(input) }));
      return true;
    } catch (error) {
      if (isAlreadyStarted(error)) return false;
      throw error;
    }
  };

  return {
    start,

    async schedule(delivery) {
      try {
        await start(delivery, 0);
      } catch (error) {
        onError(error, delivery.id);
      }
    },

    async reschedule(delivery) {
      if (await start(delivery, 0)) return 'started';
      const executionArn = `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${executionName(delivery)}`;
      const { status } = await client.send(new DescribeExecutionCommand({ executionArn }));
      return status === 'RUNNING' ? 'running' : 'ended';
    },
  };
}
