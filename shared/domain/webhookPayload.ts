import type { JobOutput, JobRecord } from './job.js';
import type { WebhookEventType } from './webhook.js';
import { serializeOutput } from './wire/job.js';

/**
 * The JSON a webhook POSTs: `{"type": <event type>, "body": ...}`. job.start and job.complete
 * carry job_id, status, error and outputs; job.complete.no_output the same without outputs;
 * job.new_output the job id and the one new output, as Sieve prints it: a string, the output's
 * InputOutput as JSON text.
 */
export function webhookPayload(type: WebhookEventType, job: JobRecord, outputs: JobOutput[]): string {
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
