import type { JobOutput, JobRecord } from './job.js';
import type { JobWebhookEventType } from './webhook.js';
import { roundDollars } from './usage.js';
import { serializeOutput } from './wire/job.js';

/**
 * The JSON a webhook POSTs: `{"type": <event type>, "body": ...}`. job.start and job.complete
 * carry job_id, status, error and outputs; job.complete.no_output the same without outputs;
 * job.new_output the job id and the one new output, as Sieve prints it: a string, the output's
 * InputOutput as JSON text.
 */
export function webhookPayload(type: JobWebhookEventType, job: JobRecord, outputs: JobOutput[]): string {
  const summary = { job_id: job.id, status: job.status, error: job.error };
  switch (type) {
    case 'job.start':
    case 'job.complete':
      return JSON.stringify({ type, body: { ...summary, outputs: outputs.map(serializeOutput) } });
    case 'job.complete.no_output':
      return JSON.stringify({ type, body: summary });
    case 'job.new_output':
      return JSON.stringify({ type, body: { job_id: job.id, output: JSON.stringify(serializeOutput(outputs[0] as JobOutput)) } });
  }
}

/** What budget.warning tells (docs/api.md, "Budgets and quotas"); all amounts in dollars. */
export interface BudgetWarning {
  organization: string;
  /** The calendar month (UTC), `YYYY-MM`. */
  month: string;
  monthlyBudget: number;
  spent: number;
  budgetWarningAt: number;
  /** The job whose end took the spend past the threshold. */
  jobId: string;
}

export function budgetWarningPayload(warning: BudgetWarning): string {
  return JSON.stringify({
    type: 'budget.warning',
    body: {
      organization: warning.organization,
      month: warning.month,
      monthly_budget: warning.monthlyBudget,
      spent: warning.spent,
      remaining: Math.max(0, roundDollars(warning.monthlyBudget - warning.spent)),
      budget_warning_at: warning.budgetWarningAt,
      job_id: warning.jobId,
    },
  });
}
