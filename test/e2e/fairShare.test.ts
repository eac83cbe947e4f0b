import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTimestamp } from '../../shared/domain/time.js';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, startTestService, waitForBuild, writeFunctionDir } from './support/testService.js';

/** A public function with one replica: every organization's jobs wait in the same line. */
const SLOW = `import sluice, time

@sluice.function(name="slow", maximum_replicas=1)
def slow(seconds: float) -> str:
    time.sleep(seconds)
    return "done"
`;
const BACKLOG = 20;
const JOB_SECONDS = 0.2;

interface Job {
  id: string;
  status: string;
  created_at: string;
  started_at: string | null;
}

describe('fair share and priority on a shared function', () => {
  let service: TestService;
  let otherKey: string;
  const call = (key: string, method: string, path: string, body?: unknown) => api<Job>(service.url, key, method, path, body);
  const push = async (key: string, extra: Record<string, unknown> = {}) =>
    (await call(key, 'POST', '/v2/push', { function: 'local/slow', inputs: { seconds: JOB_SECONDS }, ...extra })).body.id;
  const pushBacklog = async () => {
    const ids: string[] = [];
    for (let i = 0; i < BACKLOG; i++) ids.push(await push(service.key));
    return ids;
  };
  const startedAt = (job: Job) => (job.started_at === null ? Infinity : parseTimestamp(job.started_at));
  const cancelAll = (ids: string[]) => Promise.all(ids.map((id) => call(service.key, 'DELETE', `/v2/jobs/${id}`)));

  beforeAll(async () => {
    service = await startTestService();
    otherKey = await service.createOrganization('bravo');
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': SLOW }));
    await waitForBuild(service, 'local/slow', deployed.body.version.id);
    await api(service.url, service.key, 'POST', '/v2/functions/local/slow/edit', { visibility: 'public' });
  });
  afterAll(() => service.close());

  it('starts another organization’s job after at most the running one, not after the whole backlog', async () => {
    const backlog = await pushBacklog();
    const theirs = (await call(otherKey, 'GET', `/v2/jobs/${await push(otherKey)}/await`)).body;
    expect(theirs.status).toBe('finished');
    const pushedAt = parseTimestamp(theirs.created_at);
    const backlogJobs = await Promise.all(backlog.map(async (id) => (await call(service.key, 'GET', `/v2/jobs/${id}`)).body));
    await cancelAll(backlog);
    // At most the job running when it was pushed started between its push and its start.
    expect(backlogJobs.filter((job) => startedAt(job) > pushedAt && startedAt(job) < startedAt(theirs)).length).toBeLessThanOrEqual(1);
    // Most of the backlog was still waiting (first in, first out would have run all of it first).
    expect(backlogJobs.filter((job) => startedAt(job) > startedAt(theirs)).length).toBeGreaterThan(BACKLOG / 2);
  });

  it('starts an organization’s higher-priority job before its own jobs pushed earlier', async () => {
    const backlog = await pushBacklog();
    const urgent = (await call(service.key, 'GET', `/v2/jobs/${await push(service.key, { priority: 5 })}/await`)).body;
    const backlogJobs = await Promise.all(backlog.map(async (id) => (await call(service.key, 'GET', `/v2/jobs/${id}`)).body));
    await cancelAll(backlog);
    expect(backlogJobs.filter((job) => startedAt(job) > startedAt(urgent)).length).toBeGreaterThan(BACKLOG / 2);
  });
});
