import { ExecutionAlreadyExists, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createStepFunctionsScheduler } from '../../../shared/adapters/aws/stepFunctionsScheduler.js';
import { aDelivery } from '../../support/fixtures.js';

const sfn = mockClient(SFNClient);
const client = new SFNClient({ region: 'eu-west-1' });
const stateMachineArn = 'arn:aws:states:eu-west-1:123456789012:stateMachine:sluice-webhooks';
/** Lets the scheduler's fire-and-forget call settle. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

beforeEach(() => {
  sfn.reset();
});

describe('createStepFunctionsScheduler', () => {
  it('starts one execution named after the delivery, with the delivery id as input', async () => {
    sfn.on(StartExecutionCommand).resolves({ executionArn: `${stateMachineArn}:execution`, startDate: new Date() });
    const onError = vi.fn();
    const delivery = aDelivery();
    createStepFunctionsScheduler({ client, stateMachineArn, onError }).schedule(delivery);
    await settle();
    expect(sfn.commandCalls(StartExecutionCommand).map((call) => call.args[0].input)).toEqual([{ stateMachineArn, name: delivery.id, input: JSON.stringify({ deliveryId: delivery.id }) }]);
    expect(delivery.id).toMatch(/^[A-Za-z0-9-]{1,80}$/);
    expect(onError).not.toHaveBeenCalled();
  });

  it('treats an execution that already exists as scheduled (idempotent)', async () => {
    sfn.on(StartExecutionCommand).rejects(new ExecutionAlreadyExists({ message: 'Execution Already Exists', $metadata: {} }));
    const onError = vi.fn();
    const delivery = aDelivery();
    const scheduler = createStepFunctionsScheduler({ client, stateMachineArn, onError });
    scheduler.schedule(delivery);
    scheduler.schedule(delivery);
    await settle();
    expect(sfn.commandCalls(StartExecutionCommand).map((call) => call.args[0].input.name)).toEqual([delivery.id, delivery.id]);
    expect(onError).not.toHaveBeenCalled();
  });

  it('reports any other failure to onError', async () => {
    const failure = new Error('AccessDeniedException');
    sfn.on(StartExecutionCommand).rejects(failure);
    const onError = vi.fn();
    createStepFunctionsScheduler({ client, stateMachineArn, onError }).schedule(aDelivery());
    await settle();
    expect(onError).toHaveBeenCalledWith(failure);
  });
});
