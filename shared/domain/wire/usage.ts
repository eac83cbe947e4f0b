import { z } from 'zod';
import type { BillingClass } from '../machineTypes.js';
import { BILLING_CLASSES } from '../machineTypes.js';
import type { UsageTotals } from '../usage.js';
import { roundDollars, roundSeconds } from '../usage.js';

export const machineTypeUsageSchema = z.strictObject({ compute_seconds: z.number(), cost_dollars: z.number() });

export const usageReportWireSchema = z.strictObject({
  total_compute_seconds: z.number(),
  total_cost_dollars: z.number(),
  ...Object.fromEntries(BILLING_CLASSES.map((billingClass) => [billingClass, machineTypeUsageSchema])),
});

/** Every billing class is printed (zero when unused); the totals are their sums. */
export function serializeUsage(totals: Map<BillingClass, UsageTotals>) {
  const classes = Object.fromEntries(
    BILLING_CLASSES.map((billingClass) => {
      const usage = totals.get(billingClass);
      return [billingClass, { compute_seconds: usage?.computeSeconds ?? 0, cost_dollars: usage?.costDollars ?? 0 }];
    }),
  ) as Record<BillingClass, { compute_seconds: number; cost_dollars: number }>;
  const rounded = Object.fromEntries(
    Object.entries(classes).map(([billingClass, usage]) => [
      billingClass,
      { compute_seconds: roundSeconds(usage.compute_seconds), cost_dollars: roundDollars(usage.cost_dollars) },
    ]),
  ) as typeof classes;
  const all = Object.values(rounded);
  // The totals are the printed parts' sums (rounded again: adding decimals brings the noise back).
  return {
    total_compute_seconds: roundSeconds(all.reduce((sum, usage) => sum + usage.compute_seconds, 0)),
    total_cost_dollars: roundDollars(all.reduce((sum, usage) => sum + usage.cost_dollars, 0)),
    ...rounded,
  };
}

/** Keyed `owner/name`: the functions used in the range. */
export const usagePerFunctionWireSchema = z.record(z.string(), usageReportWireSchema);

/** Sieve's JobCostResponse, plus what the cost is made of. */
export const jobCostWireSchema = z.strictObject({
  job_id: z.string(),
  function_name: z.string(),
  function_owner_name: z.string(),
  function_id: z.string(),
  cost: z.number(),
  compute_seconds: z.number(),
  aggregated: z.boolean(),
});

/**
 * Sieve's credits: the dollars left of the organization's monthly budget this calendar month
 * (UTC), null and `unlimited` without a budget; the rest are Sluice extensions.
 */
export const creditsWireSchema = z.strictObject({
  credits_remaining: z.number().nullable(),
  unlimited: z.boolean(),
  billing_period_cost_dollars: z.number(),
  monthly_budget: z.number().nullable().describe("The operator's cap on the organization's spend a calendar month, in dollars; null: none."),
  budget_warning_at: z.number().describe('The fraction of the budget past which `budget.warning` is sent.'),
  budget_warning: z.boolean().describe('Whether this month has cost more than that fraction of the budget.'),
  max_active_jobs: z.number().nullable().describe('The cap on jobs queued and processing at once; null: none.'),
});
