import { paymentRequired, RateLimitedError } from '../domain/errors.js';
import type { JobRecord } from '../domain/job.js';
import type { Organization } from '../domain/organization.js';
import type { OrganizationLimits } from '../domain/organizationLimits.js';
import { budgetMonth, limitsOf, warningThreshold } from '../domain/organizationLimits.js';
import { billingPeriod, hourOf, roundDollars } from '../domain/usage.js';
import type { Webhook } from '../domain/webhook.js';
import { budgetWarningPayload } from '../domain/webhookPayload.js';
import type { Clock } from '../ports/clock.js';
import type { JobEvent } from '../ports/jobEvents.js';
import type { Store } from '../ports/store.js';
import { ExpiringCache } from './expiringCache.js';
import type { Principal } from './principal.js';
import type { WebhookService } from './webhookService.js';

/**
 * How long an organization's limits and its spend this month are remembered by a process. A
 * push reads neither from the store more often than this; the price is that an operator's change
 * made elsewhere (the CLI, another Lambda) and usage recorded by another process take this long
 * to count here. A job ended in this process counts at once (addSpend).
 */
export const BUDGET_CACHE_MS = 5000;
/** Organizations remembered at once; past it the oldest is read again. */
const CACHED_ORGANIZATIONS = 10_000;
/** What a push refused for the cap on active jobs is told to wait: jobs end in seconds, not milliseconds. */
const ACTIVE_CAP_RETRY_AFTER_S = 5;

/** Cents, or every digit of an amount under a cent (a budget set for a test, a first job's cost), never in exponent form. */
export const dollars = (amount: number) =>
  `$${
    amount >= 0.01
      ? amount.toFixed(2)
      : roundDollars(amount)
          .toFixed(9)
          .replace(/\.?0+$/, '')
  }`;

/**
 * The operator's limits at work: a push past the organization's monthly budget is refused (402),
 * one past its cap on active jobs too (429); the job whose end takes the spend past the warning
 * threshold sends `budget.warning`, once a month; the fair-share queue reads the weights.
 */
export class Budgets {
  private readonly organizations = new ExpiringCache<Organization>(BUDGET_CACHE_MS, CACHED_ORGANIZATIONS);
  /** Mutated in place by addSpend, so its expiry stays that of the read it came from. */
  private readonly spend = new ExpiringCache<{ month: string; dollars: number }>(BUDGET_CACHE_MS, CACHED_ORGANIZATIONS);
  private readonly reading = new Map<string, Promise<Organization | null>>();
  /** The last weight read of each organization, for the queue's synchronous reads between reads. */
  private readonly weights = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly webhooks: Pick<WebhookService, 'announce'>,
    private readonly clock: Clock,
  ) {}

  /** The organization's fair-share weight as last read (1 until read); reads it again when its read is older than BUDGET_CACHE_MS. */
  weightOf(organizationId: string): number {
    if (!this.organizations.get(organizationId)) this.organization(organizationId).catch(() => undefined);
    return this.weights.get(organizationId) ?? 1;
  }

  async limitsFor(principal: Principal): Promise<OrganizationLimits> {
    const organization = await this.organization(principal.organizationId, principal.organizationName);
    return organization ? limitsOf(organization) : limitsOf({});
  }

  /** An organization as a change of its limits left it: in this process the change counts at once. */
  remember(organization: Organization): void {
    this.organizations.set(organization.id, organization);
    this.weights.set(organization.id, limitsOf(organization).weight);
  }

  /**
   * Refuses a push the organization's limits forbid, before anything is written. A job's own
   * pushes (`child`) pass the cap on active jobs, as they pass the queue bound (a workflow must
   * not fail for a backlog it did not make), but not the budget: that cap is on money.
   */
  async assertCanPush(principal: Principal, child: boolean): Promise<void> {
    const limits = await this.limitsFor(principal);
    const budget = limits.monthlyBudgetDollars;
    if (budget !== null) {
      const spent = await this.spentThisMonth(principal.organizationId);
      if (spent >= budget) {
        throw paymentRequired(
          `The monthly budget of ${dollars(budget)} of organization "${principal.organizationName}" is spent: ${dollars(spent)} spent in ${budgetMonth(this.nowSeconds())} (UTC). ` +
            'No job can be pushed until the operator raises it (sluice orgs limits) or the month ends.',
        );
      }
    }
    if (limits.maxActiveJobs !== null && !child) {
      const active = await this.store.jobs.countActive(principal.organizationId);
      const count = active.queued + active.processing;
      if (count >= limits.maxActiveJobs) {
        throw new RateLimitedError(
          `Organization "${principal.organizationName}" has ${count} jobs queued or processing; its cap (max_active_jobs) is ${limits.maxActiveJobs}. Try again once some end.`,
          ACTIVE_CAP_RETRY_AFTER_S,
        );
      }
    }
  }

  /** A job's cost just recorded (UsageService): counted in the remembered spend at once. */
  addSpend(organizationId: string, costDollars: number): void {
    const cached = this.spend.get(organizationId);
    if (cached && cached.month === budgetMonth(this.nowSeconds())) cached.dollars += costDollars;
  }

  /**
   * After the usage observer: the first job's end past the warning threshold that has receivers
   * sends budget.warning. Nothing (not a promise) when the organization is known to need no check.
   */
  onJobEvent(event: JobEvent): Promise<void> | undefined {
    if (event.type !== 'completed' || event.job.startedAt === null) return undefined;
    const known = this.organizations.get(event.job.organizationId);
    if (known && !this.mayWarn(known)) return undefined;
    return this.warnIfPastThreshold(event.job);
  }

  private mayWarn(organization: Organization): boolean {
    return limitsOf(organization).monthlyBudgetDollars !== null && organization.budgetWarnedMonth !== budgetMonth(this.nowSeconds());
  }

  private async warnIfPastThreshold(job: JobRecord): Promise<void> {
    const organization = await this.organization(job.organizationId);
    if (!organization || !this.mayWarn(organization)) return;
    const limits = limitsOf(organization);
    const threshold = warningThreshold(limits) as number;
    // The remembered spend first (most ends are below the threshold); confirmed by a fresh read.
    if ((await this.spentThisMonth(job.organizationId)) < threshold) return;
    // A job nobody hears the warning through (a workflow's child, a push without webhooks)
    // leaves it for the next end that has receivers: the spend stays past the threshold.
    const receivers = await this.warningReceivers(job);
    if (receivers.length === 0) return;
    const spent = await this.spentThisMonth(job.organizationId, true);
    if (spent < threshold) return;
    const month = budgetMonth(this.nowSeconds());
    const payload = budgetWarningPayload({
      organization: organization.name,
      month,
      monthlyBudget: limits.monthlyBudgetDollars as number,
      spent: roundDollars(spent),
      budgetWarningAt: limits.budgetWarningAt,
      jobId: job.id,
    });
    // The month is marked first: of jobs ending at once, each with its own receivers, only the
    // one whose mark wins announces (an announce first would reach every one's receivers).
    const first = await this.store.organizations.markBudgetWarned(organization.id, month);
    this.organizations.set(organization.id, { ...organization, budgetWarnedMonth: month });
    if (!first) return;
    await this.webhooks.announce(job, 'budget.warning', receivers, payload, `budget.warning\n${organization.id}\n${month}`);
  }

  /**
   * The ending job's webhooks that subscribed to budget.warning, and those of its function when
   * the function is the organization's own: the organization's standing subscriptions, which a
   * push that named its own webhooks leaves out of the job.
   */
  private async warningReceivers(job: JobRecord): Promise<Webhook[]> {
    const fn = await this.store.functions.getById(job.functionId);
    const own = fn && fn.organizationId === job.organizationId ? fn.webhooks : [];
    const byUrl = new Map<string, Webhook>();
    for (const hook of [...job.webhooks, ...own]) if (hook.type === 'budget.warning') byUrl.set(hook.url, hook);
    return [...byUrl.values()];
  }

  /** Dollars spent this calendar month (UTC): remembered for BUDGET_CACHE_MS unless `fresh`. */
  private async spentThisMonth(organizationId: string, fresh = false): Promise<number> {
    const month = budgetMonth(this.nowSeconds());
    const cached = fresh ? undefined : this.spend.get(organizationId);
    if (cached && cached.month === month) return cached.dollars;
    const period = billingPeriod(this.nowSeconds());
    const totals = await this.store.usage.totals({ organizationId, fromHour: hourOf(period.start), toHour: period.end });
    const spent = [...totals.values()].reduce((sum, usage) => sum + usage.costDollars, 0);
    this.spend.set(organizationId, { month, dollars: spent });
    return spent;
  }

  /**
   * The organization whole, limits included, remembered for BUDGET_CACHE_MS; one read at a time
   * per organization. By name where the caller knows it (getById may leave the limits out).
   */
  private organization(organizationId: string, name?: string): Promise<Organization | null> {
    const cached = this.organizations.get(organizationId);
    if (cached) return Promise.resolve(cached);
    let pending = this.reading.get(organizationId);
    if (!pending) {
      pending = this.read(organizationId, name).finally(() => this.reading.delete(organizationId));
      this.reading.set(organizationId, pending);
    }
    return pending;
  }

  private async read(organizationId: string, name: string | undefined): Promise<Organization | null> {
    const known = name ?? (await this.store.organizations.getById(organizationId))?.name;
    const organization = known === undefined ? null : await this.store.organizations.getByName(known);
    if (organization) this.remember(organization);
    return organization;
  }

  private nowSeconds(): number {
    return this.clock.now() / 1e6;
  }
}
