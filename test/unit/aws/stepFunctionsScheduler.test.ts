import { DescribeExecutionCommand, ExecutionAlreadyExists, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { setTimeout } from 'node:timers/promises';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createStepFunctionsScheduler, executionName } from '../../../shared/adapters/aws/stepFunctionsScheduler.js';
import { aDelivery } from '../../support/fixtures.js';

const sfn = mockClient(SFNClient);
const client = new SFNClient({ region: 'eu-west-1' });
const stateMachineArn = 'arn:aws:states:eu-west-1:123456789012:stateMachine:sluice-webhooks';
const alreadyExists = () => new ExecutionAlreadyExists({ message: 'Execution Already Exists', $metadata: {} });
const anAttempt = { at: 1, status: 500, error: 'HTTP 500' };

beforeEach(() => {
  sfn.reset();
});

describe('createStepFunctionsScheduler', () => {
  it('starts one execution named after the delivery and its attempts so far, with the delivery id as input', async () => {
    sfn.on(StartExecutionCommand).resolves({ executionArn: `${stateMachineArn}:execution`, startDate: new Date() });
    const onError = vi.fn();
    const delivery = aDelivery();
    await createStepFunctionsScheduler({ client, stateMachineArn, onError }).schedule(delivery);
    expect(sfn.commandCalls(StartExecutionCommand).map((call) => call.args[0].input)).toEqual([
      { stateMachineArn, name: `${delivery.id}-0`, input: JSON.stringify({ deliveryId: delivery.id }) },
    ]);
    expect(executionName(aDelivery({ attempts: [anAttempt, anAttempt] }))).toMatch(/-2$/);
    // Step Functions' rule for execution names.
    expect(executionName(delivery)).toMatch(/^[A-Za-z0-9_-]{1,80}$/);
    expect(onError).not.toHaveBeenCalled();
  });

  it('starts a run that first waits with the seconds in its input, so a retry or a hold waits in Step Functions', async () => {
    sfn.on(StartExecutionCommand).resolves({ executionArn: `${stateMachineArn}:execution`, startDate: new Date() });
    const delivery = aDelivery({ attempts: [anAttempt] });
    expect(await createStepFunctionsScheduler({ client, stateMachineArn, onError: vi.fn() }).start(delivery, 3)).toBe(true);
    expect(sfn.commandCalls(StartExecutionCommand).map((call) => call.args[0].input)).toEqual([
      { stateMachineArn, name: `${delivery.id}-1`, input: JSON.stringify({ deliveryId: delivery.id, waitSeconds: 3 }) },
    ]);
  });

  it('resolves only once StartExecution has answered', async () => {
    const events: string[] = [];
    sfn.on(StartExecutionCommand).callsFake(async () => {
      await setTimeout(50);
      events.push('StartExecution answered');
      return { executionArn: `${stateMachineArn}:execution`, startDate: new Date() };
    });
    await createStepFunctionsScheduler({ client, stateMachineArn, onError: vi.fn() }).schedule(aDelivery());
    events.push('schedule resolved');
    expect(events).toEqual(['StartExecution answered', 'schedule resolved']);
  });

  it('treats an execution that already exists as scheduled (idempotent)', async () => {
    sfn.on(StartExecutionCommand).rejects(alreadyExists());
    const onError = vi.fn();
    const delivery = aDelivery();
    const scheduler = createStepFunctionsScheduler({ client, stateMachineArn, onError });
    await scheduler.schedule(delivery);
    await scheduler.schedule(delivery);
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(2);
    expect(onError).not.toHaveBeenCalled();
  });

  it('reports any other failure with the delivery id, and resolves: the delivery stays pending for the sweeper', async () => {
    const failure = new Error('ThrottlingException');
    sfn.on(StartExecutionCommand).rejects(failure);
    const onError = vi.fn();
    const delivery = aDelivery();
    await expect(createStepFunctionsScheduler({ client, stateMachineArn, onError }).schedule(delivery)).resolves.toBeUndefined();
    expect(onError).toHaveBeenCalledWith(failure, delivery.id);
  });

  describe('reschedule (the sweeper)', () => {
    it('starts a run when none of that name exists', async () => {
      sfn.on(StartExecutionCommand).resolves({ executionArn: `${stateMachineArn}:execution`, startDate: new Date() });
      expect(await createStepFunctionsScheduler({ client, stateMachineArn, onError: vi.fn() }).reschedule(aDelivery())).toBe('started');
      expect(sfn.commandCalls(DescribeExecutionCommand)).toHaveLength(0);
    });

    it('leaves a running execution alone, and tells one that ended apart, by describing it', async () => {
      const delivery = aDelivery({ attempts: [anAttempt] });
      sfn.on(StartExecutionCommand).rejects(alreadyExists());
      const executionArn = `arn:aws:states:eu-west-1:123456789012:execution:sluice-webhooks:${delivery.id}-1`;
      const scheduler = createStepFunctionsScheduler({ client, stateMachineArn, onError: vi.fn() });
      sfn.on(DescribeExecutionCommand, { executionArn }).resolves({ status: 'RUNNING' });
      expect(await scheduler.reschedule(delivery)).toBe('running');
      for (const status of ['FAILED', 'TIMED_OUT', 'ABORTED', 'SUCCEEDED'] as const) {
        sfn.on(DescribeExecutionCommand, { executionArn }).resolves({ status });
        expect(await scheduler.reschedule(delivery)).toBe('ended');
      }
    });

    it('rejects when the run cannot be started, so the sweeper reports it and tries again next time', async () => {
      sfn.on(StartExecutionCommand).rejects(new Error('ThrottlingException'));
      await expect(createStepFunctionsScheduler({ client, stateMachineArn, onError: vi.fn() }).reschedule(aDelivery())).rejects.toThrow('ThrottlingException');
    });
  });
});
