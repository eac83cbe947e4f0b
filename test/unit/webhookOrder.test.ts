import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import { createSystemClock } from '../../shared/adapters/systemClock.js';
import type { WebhookDelivery } from '../../shared/domain/webhookDelivery.js';
import type { DeliveryScheduler } from '../../shared/ports/deliveryScheduler.js';
import type { Store } from '../../shared/ports/store.js';
import type { SendResult } from '../../shared/ports/webhookSender.js';
import { WebhookDeliverer } from '../../shared/services/webhookDeliverer.js';
import { WebhookSecrets } from '../../shared/services/webhookSecrets.js';
import { WebhookService } from '../../shared/services/webhookService.js';
import { aJob, anOrganization, anOutput } from '../support/fixtures.js';

/**
 * On AWS every delivery runs on its own (a Step Functions execution each), so runs of one job's
 * deliveries to one URL can go in any order. Each step asks the deliverer first whether an
 * earlier delivery is still pending, and is held if so: the receiver still sees start, each
 * output, then complete.
 */
const clock = createSystemClock();
const URL = 'https://hooks.example.com/in-order';

let store: Store;
let scheduled: WebhookDelivery[];
let received: { url: string; type: string }[];
let answer: (url: string) => SendResult;
let deliverer: WebhookDeliverer;
let webhooks: WebhookService;

beforeEach(async () => {
  store = createSqliteStore(':memory:');
  scheduled = [];
  received = [];
  answer = () => ({ status: 200, error: null, permanent: false });
  const scheduler: DeliveryScheduler = { schedule: async (delivery) => void scheduled.push(delivery), reschedule: async () => 'started' };
  webhooks = new WebhookService(store, scheduler, clock);
  deliverer = new WebhookDeliverer(
    store,
    new WebhookSecrets(store),
    async ({ url, body }) => {
      received.push({ url, type: (JSON.parse(body) as { type: string }).type });
      return answer(url);
    },
    clock,
    1000,
  );
});
afterEach(async () => {
  await store.close();
});

/** One step of a delivery's run, as the deliver Lambda takes it: held, or one attempt. */
async function step(delivery: WebhookDelivery): Promise<'held' | 'attempted'> {
  if (await deliverer.deliveryAhead(delivery.id)) return 'held';
  await deliverer.attempt(delivery.id);
  return 'attempted';
}

async function aJobWithEvents(hooks: { type: 'job.start' | 'job.new_output' | 'job.complete'; url: string }[]) {
  const organization = anOrganization();
  await store.organizations.createIfAbsent(organization);
  const job = aJob({ organizationId: organization.id, status: 'processing', startedAt: 1, webhooks: hooks });
  await webhooks.onJobEvent({ type: 'started', job });
  await webhooks.onJobEvent({ type: 'output', job, output: anOutput({ jobId: job.id }) });
  await webhooks.onJobEvent({ type: 'completed', job: { ...job, status: 'finished', completedAt: 2 } });
  return job;
}

describe('webhook delivery order on AWS (each delivery its own run)', () => {
  it('holds complete and the output while start is pending, whatever order the runs step in', async () => {
    await aJobWithEvents([
      { type: 'job.start', url: URL },
      { type: 'job.new_output', url: URL },
      { type: 'job.complete', url: URL },
    ]);
    const [start, output, complete] = scheduled as [WebhookDelivery, WebhookDelivery, WebhookDelivery];
    // The runs step in reverse order, as executions started at once may.
    expect(await step(complete)).toBe('held');
    expect(await step(output)).toBe('held');
    expect(await step(start)).toBe('attempted');
    expect(await step(complete)).toBe('held');
    expect(await step(output)).toBe('attempted');
    expect(await step(complete)).toBe('attempted');
    expect(received.map((delivery) => delivery.type)).toEqual(['job.start', 'job.new_output', 'job.complete']);
  });

  it('keeps holding behind a delivery that is being retried, and goes on once it has failed for good', async () => {
    await aJobWithEvents([
      { type: 'job.start', url: URL },
      { type: 'job.complete', url: URL },
    ]);
    const [start, complete] = scheduled as [WebhookDelivery, WebhookDelivery];
    answer = () => ({ status: 503, error: 'HTTP 503', permanent: false });
    expect(await step(start)).toBe('attempted');
    expect(await step(complete)).toBe('held');
    answer = () => ({ status: null, error: 'refused by policy', permanent: true });
    expect(await step(start)).toBe('attempted');
    expect((await store.deliveries.get(start.id))?.state).toBe('failed');
    answer = () => ({ status: 200, error: null, permanent: false });
    expect(await step(complete)).toBe('attempted');
    expect(received.map((delivery) => delivery.type)).toEqual(['job.start', 'job.start', 'job.complete']);
  });

  it('never holds a delivery behind another URL’s', async () => {
    await aJobWithEvents([
      { type: 'job.start', url: 'https://slow.example.com/' },
      { type: 'job.complete', url: URL },
    ]);
    const [, complete] = scheduled as [WebhookDelivery, WebhookDelivery];
    expect(await step(complete)).toBe('attempted');
  });

  it('records a failure of the step itself as an attempt, retried like a receiver’s failure', async () => {
    await aJobWithEvents([{ type: 'job.complete', url: URL }]);
    const [complete] = scheduled as [WebhookDelivery];
    const after = await deliverer.recordFailure(complete.id, 'The delivery step failed: Task timed out after 60.00 seconds');
    expect(after).toMatchObject({ state: 'pending', attempts: [{ status: null, error: 'The delivery step failed: Task timed out after 60.00 seconds' }] });
    expect(after!.nextAttemptAt).toBeGreaterThan(after!.attempts[0]!.at);
  });
});
