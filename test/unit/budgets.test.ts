import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import { ServiceError } from '../../shared/domain/errors.js';
import type { JobRecord } from '../../shared/domain/job.js';
import type { OrganizationLimits } from '../../shared/domain/organizationLimits.js';
import { DEFAULT_ORGANIZATION_LIMITS } from '../../shared/domain/organizationLimits.js';
import { DEFAULT_PRICES } from '../../shared/domain/pricing.js';
import { hourOf } from '../../shared/domain/usage.js';
import type { WebhookDelivery } from '../../shared/domain/webhookDelivery.js';
import type { Clock } from '../../shared/ports/clock.js';
import type { Store } from '../../shared/ports/store.js';
import { BUDGET_CACHE_MS, Budgets, dollars } from '../../shared/services/budgets.js';
import { FunctionAccess } from '../../shared/services/functionAccess.js';
import type { Principal } from '../../shared/services/principal.js';
import { UsageService } from '../../shared/services/usageService.js';
import { VersionService } from '../../shared/services/versionService.js';
import { WebhookService } from '../../shared/services/webhookService.js';
import { aBareFunction, aJob, anOrganization, aVersion } from '../support/fixtures.js';

const CPU_DOLLARS_A_SECOND = DEFAULT_PRICES.cpu;
const NOV_10 = Date.UTC(2026, 10, 10) * 1000; // µs
const DEC_1 = Date.UTC(2026, 11, 1) * 1000;
const now = { us: NOV_10 };
const clock: Clock = { now: () => now.us, nowNs: () => BigInt(now.us) * 1000n };

let store: Store;
let scheduled: WebhookDelivery[];
let budgets: Budgets;
let usage: UsageService;
let principal: Principal;

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  now.us = NOV_10;
  store = createSqliteStore(':memory:');
  scheduled = [];
  const webhooks = new WebhookService(store, { schedule: async (delivery) => void scheduled.push(delivery), reschedule: async () => 'started' }, clock);
  budgets = new Budgets(store, webhooks, clock);
  const access = new FunctionAccess(store);
  usage = new UsageService(store, new VersionService(store, access), access, { prices: DEFAULT_PRICES, customPrices: new Map() }, clock, budgets);
  const organization = await store.organizations.createIfAbsent(anOrganization({ id: 'org-1', name: 'acme' }));
  principal = { organizationId: organization.id, organizationName: organization.name };
  await store.functions.create(aBareFunction({ id: 'function-1', webhooks: [{ type: 'budget.warning', url: 'https://ops.example.com/fn' }] }));
  await store.versions.create(aVersion({ id: 'version-1', functionId: 'function-1', computeType: 'cpu', split: 1 }));
});
afterEach(async () => {
  vi.useRealTimers();
  await store.close();
});

const setLimits = async (limits: Partial<OrganizationLimits>) => {
  const updated = await store.organizations.setLimits('org-1', { ...DEFAULT_ORGANIZATION_LIMITS, ...limits });
  budgets.remember(updated as NonNullable<typeof updated>);
};

/** A job of `seconds` on cpu that ends now, reported to the observers in the order the service runs them. */
async function endJob(seconds: number, overrides: Partial<JobRecord> = {}): Promise<JobRecord> {
  const job = aJob({ status: 'finished', startedAt: now.us - seconds * 1e6, completedAt: now.us, webhooks: [], ...overrides });
  await store.jobs.create(job);
  await usage.onJobEvent({ type: 'completed', job });
  await budgets.onJobEvent({ type: 'completed', job });
  return job;
}

const refusal = async (push: Promise<void>) =>
  push.then(
    () => null,
    (error: unknown) => (error instanceof ServiceError ? { kind: error.kind, detail: error.message } : Promise.reject(error)),
  );

describe('a monthly budget', () => {
  it('names amounts in dollars and cents, or in every digit under a cent, never in exponent form', () => {
    expect([dollars(100), dollars(1.5), dollars(0.000004351), dollars(1e-7), dollars(0)]).toEqual(['$100.00', '$1.50', '$0.000004351', '$0.0000001', '$0']);
  });

  it('refuses pushes (402) once the calendar month has cost the budget, naming the cap and the spend; a new month starts afresh', async () => {
    await setLimits({ monthlyBudgetDollars: 1 });
    expect(await refusal(budgets.assertCanPush(principal, false))).toBeNull();
    await endJob(1.5 / CPU_DOLLARS_A_SECOND); // $1.50 of cpu
    const refused = await refusal(budgets.assertCanPush(principal, false));
    expect(refused?.kind).toBe('payment_required');
    expect(refused?.detail).toMatch(/monthly budget of \$1\.00 .* is spent: \$1\.50 spent in 2026-11/);
    // A job's own pushes spend money too: the budget refuses them as well.
    expect((await refusal(budgets.assertCanPush(principal, true)))?.kind).toBe('payment_required');

    now.us = DEC_1;
    vi.setSystemTime(Date.now() + BUDGET_CACHE_MS + 1);
    expect(await refusal(budgets.assertCanPush(principal, false))).toBeNull();
  });

  it('counts spend recorded by another process within BUDGET_CACHE_MS, and a job ended here at once', async () => {
    await setLimits({ monthlyBudgetDollars: 1 });
    expect(await refusal(budgets.assertCanPush(principal, false))).toBeNull();
    // Another process (a Lambda, a worker) records $2 of usage: this one does not know yet.
    await store.usage.add({
      organizationId: 'org-1',
      functionId: 'function-1',
      versionId: 'version-1',
      billingClass: 'cpu',
      hour: hourOf(now.us / 1e6),
      computeSeconds: 1,
      costDollars: 2,
    });
    expect(await refusal(budgets.assertCanPush(principal, false))).toBeNull();
    vi.setSystemTime(Date.now() + BUDGET_CACHE_MS + 1);
    expect((await refusal(budgets.assertCanPush(principal, false)))?.kind).toBe('payment_required');
  });
});

describe('a cap on active jobs', () => {
  it('refuses a push (429) while the organization has that many jobs queued or processing, except a running job’s own', async () => {
    await setLimits({ maxActiveJobs: 2 });
    await store.jobs.create(aJob({ status: 'processing', startedAt: now.us }));
    expect(await refusal(budgets.assertCanPush(principal, false))).toBeNull();
    await store.jobs.create(aJob({ status: 'queued' }));
    const refused = await refusal(budgets.assertCanPush(principal, false));
    expect(refused).toEqual({ kind: 'too_many_requests', detail: expect.stringMatching(/has 2 jobs queued or processing; its cap \(max_active_jobs\) is 2/) });
    expect(await refusal(budgets.assertCanPush(principal, true))).toBeNull();
  });
});

describe('budget.warning', () => {
  it("is sent once a month, by the job whose end passes the threshold, to its and its function's subscribed webhooks", async () => {
    await setLimits({ monthlyBudgetDollars: 1, budgetWarningAt: 0.5 });
    await endJob(0.4 / CPU_DOLLARS_A_SECOND);
    expect(scheduled).toEqual([]);
    const hooks = [
      { type: 'budget.warning' as const, url: 'https://ops.example.com/job' },
      { type: 'budget.warning' as const, url: 'https://ops.example.com/fn' },
      { type: 'job.complete' as const, url: 'https://ops.example.com/done' },
    ];
    const crossing = await endJob(0.2 / CPU_DOLLARS_A_SECOND, { webhooks: hooks });
    expect(scheduled.map((delivery) => [delivery.eventType, delivery.url, delivery.jobId])).toEqual([
      ['budget.warning', 'https://ops.example.com/job', crossing.id],
      ['budget.warning', 'https://ops.example.com/fn', crossing.id],
    ]);
    expect(JSON.parse((scheduled[0] as WebhookDelivery).payload)).toEqual({
      type: 'budget.warning',
      body: {
        organization: 'acme',
        month: '2026-11',
        monthly_budget: 1,
        spent: expect.closeTo(0.6, 9),
        remaining: expect.closeTo(0.4, 9),
        budget_warning_at: 0.5,
        job_id: crossing.id,
      },
    });

    await endJob(0.1 / CPU_DOLLARS_A_SECOND, { webhooks: hooks });
    expect(scheduled).toHaveLength(2);
    now.us = DEC_1 + (0.7 / CPU_DOLLARS_A_SECOND) * 1e6;
    vi.setSystemTime(Date.now() + BUDGET_CACHE_MS + 1);
    await endJob(0.7 / CPU_DOLLARS_A_SECOND, { webhooks: hooks });
    expect(scheduled.map((delivery) => JSON.parse(delivery.payload).body.month)).toEqual(['2026-11', '2026-11', '2026-12', '2026-12']);
  });

  it('is sent by the first job past the threshold that has receivers: a child job or a push without webhooks does not use it up', async () => {
    await setLimits({ monthlyBudgetDollars: 1, budgetWarningAt: 0.5 });
    await store.functions.create(aBareFunction({ id: 'function-2', name: 'child', webhooks: [] }));
    await endJob(0.6 / CPU_DOLLARS_A_SECOND, { functionId: 'function-2' });
    expect(scheduled).toEqual([]);
    const heard = await endJob(0.1 / CPU_DOLLARS_A_SECOND, {
      functionId: 'function-2',
      webhooks: [{ type: 'budget.warning', url: 'https://ops.example.com/job' }],
    });
    expect(scheduled.map((delivery) => [delivery.eventType, delivery.url, delivery.jobId])).toEqual([
      ['budget.warning', 'https://ops.example.com/job', heard.id],
    ]);
    expect(JSON.parse((scheduled[0] as WebhookDelivery).payload).body.spent).toBeCloseTo(0.7, 9);
  });

  it('is sent once when jobs with different receivers pass the threshold at once on two workers', async () => {
    await setLimits({ monthlyBudgetDollars: 1, budgetWarningAt: 0.5 });
    const otherWorker = new Budgets(
      store,
      new WebhookService(store, { schedule: async (delivery) => void scheduled.push(delivery), reschedule: async () => 'started' }, clock),
      clock,
    );
    otherWorker.remember((await store.organizations.getById('org-1'))!);
    const ended = (url: string) =>
      aJob({ status: 'finished', startedAt: now.us - 0.35e6 / CPU_DOLLARS_A_SECOND, completedAt: now.us, webhooks: [{ type: 'budget.warning', url }] });
    const [first, second] = [ended('https://ops.example.com/a'), ended('https://ops.example.com/b')];
    for (const job of [first, second]) {
      await store.jobs.create(job);
      await usage.onJobEvent({ type: 'completed', job });
    }

    await Promise.all([budgets.onJobEvent({ type: 'completed', job: first }), otherWorker.onJobEvent({ type: 'completed', job: second })]);

    const warned = new Set(scheduled.map((delivery) => delivery.jobId));
    expect(warned.size).toBe(1);
    expect(scheduled.map((delivery) => delivery.url).sort()).toEqual(
      ['https://ops.example.com/fn', warned.has(first.id) ? 'https://ops.example.com/a' : 'https://ops.example.com/b'].sort(),
    );
  });

  it("reaches only the organization's own receivers when its job ran another organization's function", async () => {
    await store.organizations.createIfAbsent(anOrganization({ id: 'org-2', name: 'globex' }));
    const limits = await store.organizations.setLimits('org-2', { ...DEFAULT_ORGANIZATION_LIMITS, monthlyBudgetDollars: 1, budgetWarningAt: 0.5 });
    budgets.remember(limits!);
    // function-1 is acme's, with its own budget.warning receiver: never told of globex's spend.
    await endJob(0.6 / CPU_DOLLARS_A_SECOND, { organizationId: 'org-2' });
    expect(scheduled).toEqual([]);
    const heard = await endJob(0.1 / CPU_DOLLARS_A_SECOND, {
      organizationId: 'org-2',
      webhooks: [{ type: 'budget.warning', url: 'https://globex.example.com/warn' }],
    });
    expect(scheduled.map((delivery) => [delivery.url, delivery.organizationId, delivery.jobId])).toEqual([
      ['https://globex.example.com/warn', 'org-2', heard.id],
    ]);
    expect(JSON.parse((scheduled[0] as WebhookDelivery).payload).body.organization).toBe('globex');
  });

  it('is not sent for an organization without a budget', async () => {
    await endJob(1000 / CPU_DOLLARS_A_SECOND, { webhooks: [{ type: 'budget.warning', url: 'https://ops.example.com/job' }] });
    expect(scheduled).toEqual([]);
  });
});

describe('weights for the fair-share queue', () => {
  it("answers 1 until the organization is read, then the operator's weight", async () => {
    await store.organizations.setLimits('org-1', { ...DEFAULT_ORGANIZATION_LIMITS, weight: 4 });
    expect(budgets.weightOf('org-1')).toBe(1);
    await vi.waitFor(() => expect(budgets.weightOf('org-1')).toBe(4));
    expect(budgets.weightOf('no-such-org')).toBe(1);
  });
});
