import type { JobOutput, JobRecord } from './job.js';
import type { WebhookEventType } from './webhook.js';

/** An output as the interface prints an InputOutput. */
export function outputToWire(output: JobOutput) {
  return { type: output.type, name: output.name, data: output.data, description: '', schema: {}, run_id: output.runId, is_optional: false };
}

/**
 * The JSON a webhook POSTs: `{"type": <event type>, "body": ...}`. job.start and job.complete
 * carry job_id, status, error and outputs; job.complete.no_output the same without outputs;
 * job.new_output the job id and the one new output.
 */
export function webhookPayload(type: WebhookEventType, job: JobRecord, outputs: JobOutput[]): string {
  const summary = { job_id: job.id, status: job.status, error: job.error };
  switch (type) {
    case 'job.start':
    case 'job.complete':
      return JSON.stringify({ type, body: { ...summary, outputs: outputs.map(outputToWire) } });
    case 'job.complete.no_output':
      return JSON.stringify({ type, body: summary });
    case 'job.new_output':
      return JSON.stringify({ type, body: { job_id: job.id, output: outputToWire(outputs[0] as JobOutput) } });
  }
}
