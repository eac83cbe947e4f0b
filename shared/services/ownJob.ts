import { notFound } from '../domain/errors.js';
import type { JobRecord } from '../domain/job.js';
import type { Store } from '../ports/store.js';
import type { Principal } from './principal.js';

/** A job as its pusher may see it: another organization's job is 404, as if it did not exist. */
export async function readOwnJob(store: Store, principal: Principal, jobId: string): Promise<JobRecord> {
  const job = await store.jobs.get(jobId);
  if (!job || job.organizationId !== principal.organizationId) throw notFound('Job not found.');
  return job;
}
