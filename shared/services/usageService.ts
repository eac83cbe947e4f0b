import { badRequest } from '../domain/errors.js';
import { limitsOf, warningThreshold } from '../domain/organizationLimits.js';
import type { JobRecord } from '../domain/job.js';
import type { Pricing } from '../domain/pricing.js';
import { charge } from '../domain/pricing.js';
import type { UsageIncrement } from '../domain/usage.js';
import { billingPeriod, HOUR_SECONDS, hourOf, roundDollars, roundSeconds } from '../domain/usage.js';
import type { VersionRecord } from '../domain/version.js';
import { serializeUsage } from '../domain/wire/usage.js';
import type { Clock } from '../ports/clock.js';
import type { JobEvent } from '../ports/jobEvents.js';
import type { Store, UsageQuery } from '../ports/store.js';
import type { Budgets } from './budgets.js';
import type { FunctionAccess } from './functionAccess.js';
import { readOwnJob } from './ownJob.js';
import type { Principal } from './principal.js';
import type { VersionService } from './versionService.js';

export interface UsageRange {
  startNs?: bigint;
  endNs?: bigint;
}

/**
 * Compute usage and its cost. A job accrues from started_at to completed_at on its version's
 * machine type, counted once when it ends, into hourly aggregates; reports read those, never
 * the jobs. Idle time of minimum replicas is added to the function owner's usage.
 */
export class UsageService {
  /** What billing needs of a version never changes once it exists: remembered, not re-read per job. */
  private readonly versionCache = new Map<string, VersionRecord>();

  constructor(
    private readonly store: Store,
    private readonly versions: VersionService,
    private readonly access: FunctionAccess,
    private readonly pricing: Pricing,
    private readonly clock: Clock,
    /** The organization's budget (credits) and the spend it remembers; none: no budgets. */
    private readonly budgets?: Pick<Budgets, 'addSpend' | 'limitsFor'>,
  ) {}

  /** Nothing (not a promise) for an event that uses no compute time: a start, an output, a job that never ran. */
  onJobEvent(event: JobEvent): Promise<void> | undefined {
    const job = event.job;
    return event.type !== 'completed' || job.startedAt === null || job.completedAt === null ? undefined : this.recordJob(job);
  }

  private async recordJob(job: JobRecord): Promise<void> {
    const version = await this.versionOf(job.versionId);
    if (!version) return;
    const usage = this.chargeOf(job, version);
    // In the commit of the job's end (JobNotifier waits for it): a crash keeps both or neither.
    const recorded = await this.store.usage.recordJob(
      job.id,
      {
        organizationId: job.organizationId,
        functionId: job.functionId,
        versionId: job.versionId,
        billingClass: usage.billingClass,
        hour: hourOf((job.completedAt as number) / 1e6),
        computeSeconds: usage.computeSeconds,
        costDollars: usage.costDollars,
      },
      { deferDurability: true },
    );
    if (recorded) this.budgets?.addSpend(job.organizationId, usage.costDollars);
  }

  /** Idle seconds of a version's minimum replicas, billed to the function's owner. */
  async recordIdle(version: VersionRecord, seconds: number): Promise<void> {
    const increment = await this.idleIncrement(version, seconds);
    if (!increment) return;
    await this.store.usage.add(increment);
    this.budgets?.addSpend(increment.organizationId, increment.costDollars);
  }

  /**
   * Idle seconds billed under a once-only marker (an idle slot of one minute, see
   * SharedIdleUsage): of all calls with the same marker, only the first adds. Answers whether it did.
   */
  async recordIdleOnce(version: VersionRecord, marker: string, seconds: number): Promise<boolean> {
    const increment = await this.idleIncrement(version, seconds);
    const recorded = increment ? await this.store.usage.recordJob(marker, increment) : false;
    if (recorded && increment) this.budgets?.addSpend(increment.organizationId, increment.costDollars);
    return recorded;
  }

  private async idleIncrement(version: VersionRecord, seconds: number): Promise<UsageIncrement | null> {
    const fn = await this.store.functions.getById(version.functionId);
    if (!fn || seconds <= 0) return null;
    const usage = charge(this.pricing, `${fn.ownerName}/${fn.name}`, version.computeType, version.split, seconds);
    return {
      organizationId: fn.organizationId,
      functionId: fn.id,
      versionId: version.id,
      billingClass: usage.billingClass,
      hour: hourOf(this.clock.now() / 1e6),
      computeSeconds: seconds,
      costDollars: usage.costDollars,
    };
  }

  async report(principal: Principal, range: UsageRange) {
    return this.totals(principal, undefined, range);
  }

  async versionReport(principal: Principal, ownerName: string, name: string, slug: string, range: UsageRange) {
    const { version } = await this.versions.get(principal, ownerName, name, slug);
    return this.totals(principal, version.id, range);
  }

  /** The caller's usage of one function, all its versions. */
  async functionReport(principal: Principal, ownerName: string, name: string, range: UsageRange) {
    const fn = await this.access.readable(principal, ownerName, name);
    const byFunction = await this.store.usage.totalsByFunction(this.query(principal, undefined, range));
    return serializeUsage(byFunction.get(fn.id) ?? new Map());
  }

  /** The caller's usage by function, keyed `owner/name`; functions it did not use are left out. */
  async perFunctionReport(principal: Principal, range: UsageRange) {
    const byFunction = await this.store.usage.totalsByFunction(this.query(principal, undefined, range));
    const entries = await Promise.all(
      [...byFunction].map(async ([functionId, totals]) => {
        const fn = await this.store.functions.getById(functionId);
        return [fn ? `${fn.ownerName}/${fn.name}` : functionId, serializeUsage(totals)] as const;
      }),
    );
    return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /**
   * A job's cost (its last attempt: started_at to completed_at, or to now while it runs); with
   * `aggregated`, plus that of every job it pushed, and theirs, all the way down.
   */
  async jobCost(principal: Principal, jobId: string, aggregated: boolean) {
    const job = await readOwnJob(this.store, principal, jobId);
    // Each job's charge is rounded as its own cost answers it, so a total is the sum of its parts.
    const own = await this.jobCharge(job);
    let cost = roundDollars(own.costDollars);
    let computeSeconds = roundSeconds(own.computeSeconds);
    if (aggregated) {
      for (let pending = await this.store.jobs.listChildren(job.id); pending.length > 0;) {
        const child = pending.shift() as JobRecord;
        const charge = await this.jobCharge(child);
        cost += roundDollars(charge.costDollars);
        computeSeconds += roundSeconds(charge.computeSeconds);
        pending.push(...(await this.store.jobs.listChildren(child.id)));
      }
    }
    return {
      job_id: job.id,
      function_name: job.functionName,
      function_owner_name: job.ownerName,
      function_id: job.functionId,
      cost: roundDollars(cost),
      // Sluice extensions: what the cost is made of.
      compute_seconds: roundSeconds(computeSeconds),
      aggregated,
    };
  }

  /**
   * Sieve's credits as Sluice has them: the dollars left of the organization's monthly budget
   * (the operator's, docs/api.md "Budgets and quotas") this calendar month (UTC), or unlimited
   * without one; with what the month has cost so far, read now (not the pushes' remembered spend).
   */
  async credits(principal: Principal) {
    const report = await this.totals(principal, undefined, {});
    const limits = this.budgets ? await this.budgets.limitsFor(principal) : limitsOf({});
    const spent = report.total_cost_dollars;
    const budget = limits.monthlyBudgetDollars;
    return {
      credits_remaining: budget === null ? null : roundDollars(Math.max(0, budget - spent)),
      unlimited: budget === null,
      billing_period_cost_dollars: spent,
      monthly_budget: budget,
      budget_warning_at: limits.budgetWarningAt,
      budget_warning: spent >= (warningThreshold(limits) ?? Infinity),
      max_active_jobs: limits.maxActiveJobs,
    };
  }

  private async jobCharge(job: JobRecord) {
    const version = await this.versionOf(job.versionId);
    return version ? this.chargeOf(job, version) : { computeSeconds: 0, costDollars: 0 };
  }

  private async versionOf(versionId: string): Promise<VersionRecord | null> {
    const cached = this.versionCache.get(versionId);
    if (cached) return cached;
    const version = await this.store.versions.get(versionId);
    if (version) {
      if (this.versionCache.size >= 1000) this.versionCache.clear();
      this.versionCache.set(versionId, version);
    }
    return version;
  }

  private chargeOf(job: JobRecord, version: VersionRecord) {
    const end = job.completedAt ?? (job.startedAt === null ? null : this.clock.now());
    const seconds = job.startedAt === null || end === null ? 0 : Math.max(0, end - job.startedAt) / 1e6;
    return charge(this.pricing, `${job.ownerName}/${job.functionName}`, version.computeType, version.split, seconds);
  }

  /**
   * Usage is kept per hour: a range covers every hour it touches. Omitted bounds are the
   * current billing period's (the calendar month, UTC).
   */
  private query(principal: Principal, versionId: string | undefined, range: UsageRange): UsageQuery {
    const period = billingPeriod(this.clock.now() / 1e6);
    const start = range.startNs === undefined ? period.start : Number(range.startNs / 1_000_000_000n);
    const end = range.endNs === undefined ? period.end : Number(range.endNs / 1_000_000_000n);
    if (start > end) throw badRequest('Invalid timestamps provided.');
    return {
      organizationId: principal.organizationId,
      versionId,
      fromHour: hourOf(start),
      toHour: hourOf(end) + (end % HOUR_SECONDS === 0 ? 0 : HOUR_SECONDS),
    };
  }

  private async totals(principal: Principal, versionId: string | undefined, range: UsageRange) {
    return serializeUsage(await this.store.usage.totals(this.query(principal, versionId, range)));
  }
}
