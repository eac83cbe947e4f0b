import type { InputOutput, Job } from './apiTypes.js';
import type { ServerSentEvent } from './serverSentEvents.js';

/** A log line: its text and time (nanoseconds since the epoch, an integer string), with the labels the stream or page gave it. */
export interface LogLine {
  message: string;
  timestamp: string;
  job_id?: string;
  stage?: string;
  [label: string]: unknown;
}

/** A job's progress, as GET /v2/jobs/{id}/events tells it. */
export type JobEvent =
  | { type: 'status'; job_id: string; status: Job['status'] }
  | { type: 'output'; output: InputOutput }
  | { type: 'log'; line: LogLine }
  | { type: 'done'; job: Job };

/** A stream event as a JobEvent; null for a type this client does not know (a newer service's). */
export function jobEventOf(event: ServerSentEvent): JobEvent | null {
  const data = JSON.parse(event.data) as unknown;
  switch (event.event) {
    case 'status':
      return { type: 'status', ...(data as { job_id: string; status: Job['status'] }) };
    case 'output':
      return { type: 'output', output: data as InputOutput };
    case 'log':
      return { type: 'log', line: data as LogLine };
    case 'done':
      return { type: 'done', job: data as Job };
    default:
      return null;
  }
}
