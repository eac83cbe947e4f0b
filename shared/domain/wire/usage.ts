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
  const all = Object.values(classes);
  // The totals are summed before rounding, so they are as exact as the parts allow.
  const total = { compute_seconds: all.reduce((sum, usage) => sum + usage.compute_seconds, 0), cost_dollars: all.reduce((sum, usage) => sum + usage.cost_dollars, 0) };
  const rounded = Object.fromEntries(
    Object.entries(classes).map(([billingClass, usage]) => [billingClass, { compute_seconds: roundSeconds(usage.compute_seconds), cost_dollars: roundDollars(usage.cost_dollars) }]),
  ) as typeof classes;
  return {
    total_compute_seconds: roundSeconds(total.compute_seconds),
    total_cost_dollars: roundDollars(total.cost_dollars),
    ...rounded,
  };
}
