/**
 * GET /v2/jobs/{id}/await (shared/services/jobWaits.ts) answers a job's end only once it is
 * committed: the soak found awaits answered `error` for jobs that then finished, the end they
 * read having been rolled back by a failed commit (a full disk) and the job run again.
 */
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../shared/domain/job.js';
import type { JobEvent } from '../../shared/ports/jobEvents.js';
import { JobWaits } from '../../shared/services/jobWaits.js';

describe('await of a job whose end was read before its commit', () => {
  const principal = { organizationId: 'org', organizationName: 'acme' };
  const job = (status: JobRecord['status']) => ({ id: 'job-1', organizationId: 'org', status }) as JobRecord;

  function waits(commit: () => Promise<void>) {
    const listeners: ((event: JobEvent) => void)[] = [];
    const store = { jobs: { get: async () => job('error') }, durable: commit };
    const events = { subscribe: (_id: string, listener: (event: JobEvent) => void) => (listeners.push(listener), () => undefined), publish: () => undefined };
    const views = { one: async (record: JobRecord) => ({ job: record }) };
    const end = (record: JobRecord) => listeners.forEach((listener) => listener({ type: 'completed', job: record }));
    return { waits: new JobWaits({ store, events, views } as never), end };
  }

  it('waits for the job’s real end when the commit holding the end it read fails', async () => {
    const { waits: jobWaits, end } = waits(() => Promise.reject(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })));
    const answer = jobWaits.await(principal, 'job-1', 0, 5_000);
    setTimeout(() => end(job('finished')), 10); // run again once there is room
    expect(((await answer) as unknown as { job: JobRecord }).job.status).toBe('finished');
  });

  it('answers the end it read at once when its commit holds', async () => {
    const { waits: jobWaits } = waits(() => Promise.resolve());
    expect(((await jobWaits.await(principal, 'job-1', 0, 5_000)) as unknown as { job: JobRecord }).job.status).toBe('error');
  });
});
