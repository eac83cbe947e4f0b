import { z } from 'zod';
import type { Organization } from '../organization.js';
import { limitsOf } from '../organizationLimits.js';

/** An organization's limits as the operator API answers them (docs/api.md, "Budgets and quotas"). */
export const organizationLimitsWireSchema = z.strictObject({
  organization: z.string(),
  weight: z.number(),
  monthly_budget: z.number().nullable(),
  max_active_jobs: z.number().nullable(),
  budget_warning_at: z.number(),
});

export const organizationLimitsListWireSchema = z.strictObject({ data: z.array(organizationLimitsWireSchema) });

export function serializeLimits(organization: Organization): z.infer<typeof organizationLimitsWireSchema> {
  const limits = limitsOf(organization);
  return {
    organization: organization.name,
    weight: limits.weight,
    monthly_budget: limits.monthlyBudgetDollars,
    max_active_jobs: limits.maxActiveJobs,
    budget_warning_at: limits.budgetWarningAt,
  };
}
