import { z } from 'zod';

export const WEBHOOK_EVENT_TYPES = ['job.start', 'job.complete', 'job.complete.no_output', 'job.new_output', 'budget.warning'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** The events of a job's own moves; budget.warning is the organization's (services/budgets.ts). */
export type JobWebhookEventType = Exclude<WebhookEventType, 'budget.warning'>;

/** Sieve's legacy names, still accepted: they subscribe to the events of today's names. */
const LEGACY_EVENT_TYPES: Record<string, WebhookEventType> = { job_start: 'job.start', job_complete: 'job.complete' };

export const webhookSchema = z.object({
  type: z.preprocess((type) => (typeof type === 'string' ? (LEGACY_EVENT_TYPES[type] ?? type) : type), z.enum(WEBHOOK_EVENT_TYPES)),
  url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }),
});
export type Webhook = z.infer<typeof webhookSchema>;

/** Webhooks one job (or one function) may have: each event of a job is sent to every one of them. */
export const MAX_WEBHOOKS_PER_JOB = 20;

export const webhookListSchema = z.array(webhookSchema).max(MAX_WEBHOOKS_PER_JOB, `at most ${MAX_WEBHOOKS_PER_JOB} webhooks`);
