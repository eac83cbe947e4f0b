import type { JobOutput, JobRecord } from '../domain/job.js';

/** What happens to a job, as it happens: await wakes on `completed`; webhooks follow all three. */
export type JobEvent = { type: 'started'; job: JobRecord } | { type: 'output'; job: JobRecord; output: JobOutput } | { type: 'completed'; job: JobRecord };

export interface JobEvents {
  publish(event: JobEvent): void;
  /** Calls the listener for each event of this job until the returned function is called. */
  subscribe(jobId: string, listener: (event: JobEvent) => void): () => void;
}
