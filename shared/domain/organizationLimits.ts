import { z } from 'zod';

/**
 * What the operator allows an organization (docs/api.md, "Budgets and quotas"): its share of
 * contended replicas, a monthly spending cap in dollars, a cap on its unfinished jobs, and the
 * fraction of the cap at which it is warned. Set only by the operator, never by the
 * organization's own keys.
 */
export interface OrganizationLimits {
  /** Fair share among organizations whose jobs wait for the same version (1..MAX_WEIGHT). */
  weight: number;
  /** Dollars a calendar month (UTC); null: no cap. */
  monthlyBudgetDollars: number | null;
  /** Jobs queued and processing at once; null: no cap. */
  maxActiveJobs: number | null;
  /** The fraction of the budget past which `budget.warning` is sent (once a month). */
  budgetWarningAt: number;
}

export const MIN_WEIGHT = 1;
export const MAX_WEIGHT = 100;

export const DEFAULT_ORGANIZATION_LIMITS: OrganizationLimits = Object.freeze({
  weight: 1,
  monthlyBudgetDollars: null,
  maxActiveJobs: null,
  budgetWarningAt: 0.8,
});

/** An organization's limits; the defaults where the operator never set them. */
export const limitsOf = (organization: { limits?: OrganizationLimits }): OrganizationLimits => organization.limits ?? DEFAULT_ORGANIZATION_LIMITS;

/**
 * A change of limits as the operator API and CLI take it: an absent field keeps its value, a
 * null budget or cap removes it.
 */
export const organizationLimitsChangeSchema = z.strictObject({
  weight: z.number().int().min(MIN_WEIGHT).max(MAX_WEIGHT).optional().describe(`Fair share, ${MIN_WEIGHT}..${MAX_WEIGHT} (default 1).`),
  monthly_budget: z.number().min(0).max(1e9).nullable().optional().describe('Dollars a calendar month (UTC); null: none.'),
  max_active_jobs: z.number().int().min(0).max(1e9).nullable().optional().describe('Jobs queued and processing at once; null: none.'),
  budget_warning_at: z.number().gt(0).max(1).optional().describe('Fraction of the budget past which `budget.warning` is sent (default 0.8).'),
});
export type OrganizationLimitsChange = z.infer<typeof organizationLimitsChangeSchema>;

export function applyLimitsChange(limits: OrganizationLimits, change: OrganizationLimitsChange): OrganizationLimits {
  return {
    weight: change.weight ?? limits.weight,
    monthlyBudgetDollars: change.monthly_budget === undefined ? limits.monthlyBudgetDollars : change.monthly_budget,
    maxActiveJobs: change.max_active_jobs === undefined ? limits.maxActiveJobs : change.max_active_jobs,
    budgetWarningAt: change.budget_warning_at ?? limits.budgetWarningAt,
  };
}

/** The month's spend past which `budget.warning` is sent (and credits say so); null without a budget. */
export const warningThreshold = (limits: OrganizationLimits): number | null =>
  limits.monthlyBudgetDollars === null ? null : limits.budgetWarningAt * limits.monthlyBudgetDollars;

/** The billing month a budget warning belongs to, `YYYY-MM` (UTC). */
export function budgetMonth(nowSeconds: number): string {
  return new Date(nowSeconds * 1000).toISOString().slice(0, 7);
}
