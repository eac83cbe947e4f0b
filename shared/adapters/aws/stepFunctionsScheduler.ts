import { StartExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import type { DeliveryScheduler } from '../../ports/deliveryScheduler.js';

export interface StepFunctionsSchedulerOptions {
  client: SFNClient;
  /** The webhook state machine: a Wait/Choice loop that attempts the delivery until it ends. */
  stateMachineArn: string;
  onError: (error: unknown) => void;
}

/**
 * One state machine execution per delivery, named after it. Execution names are unique per
 * state machine, so scheduling a delivery twice starts it once: StartExecution answers
 * ExecutionAlreadyExists, which means the delivery is already on its way.
 */
export function createStepFunctionsScheduler(options: StepFunctionsSchedulerOptions): DeliveryScheduler {
  const { client, stateMachineArn, onError } = options;
  return {
    schedule(delivery) {
      const start = new StartExecutionCommand({ stateMachineArn, name: delivery.id, input: JSON.stringify({ deliveryId: delivery.id }) });
      client.send(start).catch((error: unknown) => {
        if ((error as { name?: string }).name !== 'ExecutionAlreadyExists') onError(error);
      });
    },
  };
}
