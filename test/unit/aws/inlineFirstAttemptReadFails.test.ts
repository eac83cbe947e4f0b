import { describe, expect, it } from 'vitest';
import { createInlineFirstAttemptScheduler } from '../../../shared/adapters/aws/inlineFirstAttempt.js';
import type { StepFunctionsScheduler } from '../../../shared/adapters/aws/stepFunctionsScheduler.js';
import type { WebhookDelivery } from '../../../shared/domain/webhookDelivery.js';
import type { Clock } from '../../../shared/ports/clock.js';
import type { DeliveryAttempts } from '../../../shared/ports/deliveryScheduler.js';
import { aDelivery } from '../../support/fixtures.js';

const clock: Clock = { now: () => 1_000_000_000, nowNs: () => 1_000_000_000_000n };
const throttled = () => Promise.reject(Object.assign(new Error('Rate exceeded'), { name: 'ProvisionedThroughputExceededException' }));

/** Step Functions as far as the scheduler sees it: the runs it started, each with its wait; `refuse` fails StartExecution. */
function runsRecorded(refuse = false) {
  const started: { id: string; waitSeconds: number }[] = [];
  const runs: StepFunctionsScheduler = {
    start: (delivery: WebhookDelivery, waitSeconds: number) => {
      if (refuse) return Promise.reject(new Error('ThrottlingException'));
      started.push({ id: delivery.id, waitSeconds });
      return Promise.resolve(true);
    },
    schedule: () => Promise.resolve(),
    reschedule: () => Promise.resolve('started'),
  };
  return { runs, started };
}

/**
 * A delivery's first attempt on AWS when the store cannot be read for it (DynamoDB throttled
 * past the SDK's retries): the delivery is stored, so a Step Functions run takes it at once (its
 * deliver Lambda reads it again, holds it or attempts it), instead of its waiting for the
 * sweeper, which restarts only deliveries two minutes overdue.
 */
describe('the inline first attempt when the stored delivery cannot be read', () => {
  const unreadable: DeliveryAttempts = { current: throttled, deliveryAhead: throttled, attempt: throttled };

  it('hands the delivery to a run at once, and reports the read that failed', async () => {
    const { runs, started } = runsRecorded();
    const errors: string[] = [];
    const scheduler = createInlineFirstAttemptScheduler({ runs, attempts: unreadable, clock, timeoutMs: 2000, onError: (_error, id) => errors.push(id) });
    const delivery = aDelivery();
    await scheduler.schedule(delivery);
    expect(started).toEqual([{ id: delivery.id, waitSeconds: 0 }]);
    expect(errors).toEqual([delivery.id]);
  });

  it('hands it to a run when the check for an earlier delivery of the job fails', async () => {
    const { runs, started } = runsRecorded();
    const delivery = aDelivery();
    const attempts: DeliveryAttempts = { ...unreadable, current: () => Promise.resolve(delivery) };
    const scheduler = createInlineFirstAttemptScheduler({ runs, attempts, clock, timeoutMs: 2000, onError: () => undefined });
    await scheduler.schedule(delivery);
    expect(started).toEqual([{ id: delivery.id, waitSeconds: 0 }]);
  });

  it('resolves, reporting both failures, when the run cannot start either: the delivery stays pending for the sweeper', async () => {
    const { runs } = runsRecorded(true);
    const errors: string[] = [];
    const scheduler = createInlineFirstAttemptScheduler({ runs, attempts: unreadable, clock, timeoutMs: 2000, onError: (_error, id) => errors.push(id) });
    const delivery = aDelivery();
    await expect(scheduler.schedule(delivery)).resolves.toBeUndefined();
    expect(errors).toEqual([delivery.id, delivery.id]);
  });
});
