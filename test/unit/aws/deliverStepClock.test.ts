/**
 * The aws:local 2-hour soak (seed 672047960) gave up a job.start delivery after 10 attempts in
 * 15 s while its receiver was down: the deliverer stamps the next attempt on the service's clock
 * (its start plus monotonic time), and the Deliver step read the wait on Date.now(), which the
 * soak's clock jump had moved 100 s ahead, so every wait came out at the 1 s floor.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deliverStep } from '../../../handlers/webhooks/deliver.js';
import type { WebhookDelivery } from '../../../shared/domain/webhookDelivery.js';

const CLOCK_NOW = 1_800_000_000_000_000;

afterEach(() => vi.useRealTimers());

describe('a Deliver step after a failed attempt', () => {
  it("waits as long as the attempt's backoff says, read on the clock that stamped it", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(CLOCK_NOW / 1000 + 100_000); // the wall clock jumped 100 s ahead
    const pending = { id: 'delivery-1', state: 'pending', nextAttemptAt: CLOCK_NOW + 26_000_000, attempts: [] } as unknown as WebhookDelivery;
    const deliverer = {
      attempt: async () => pending,
      current: async () => pending,
      deliveryAhead: async () => null,
      recordFailure: async () => pending,
    };

    const answer = await deliverStep(deliverer, { deliveryId: 'delivery-1' }, () => CLOCK_NOW);

    expect(answer).toMatchObject({ state: 'pending', waitSeconds: 26, attempted: 1 });
  });
});
