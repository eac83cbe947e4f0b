import type { Credits } from '../api/types.js';
import { formatDollars } from '../lib/format.js';

/**
 * The organization's monthly budget as the operator set it (GET /v2/usage/credits): spent of
 * the cap this calendar month (UTC), and a warning once past its threshold.
 */
export function BudgetLine({ credits }: { credits: Credits }) {
  const budget = credits.monthly_budget;
  const spent = credits.billing_period_cost_dollars;
  return (
    <>
      <div class="card stat">
        <span class="muted">Budget this month</span>
        <strong data-testid="budget">{budget === null ? 'Unlimited' : `${formatDollars(spent)} / ${formatDollars(budget)}`}</strong>
      </div>
      {budget !== null && credits.budget_warning && (
        <p class="budget-warning" role="status" data-testid="budget-warning">
          {spent >= budget
            ? `The monthly budget of ${formatDollars(budget)} is spent: new jobs are refused (402) until the operator raises it or the month ends.`
            : `Past ${Math.round(credits.budget_warning_at * 100)}% of the monthly budget: ${formatDollars(budget - spent)} left this month.`}
        </p>
      )}
    </>
  );
}
