import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../e2e/support/cli.js';
import { until, writeFunctionDir } from '../e2e/support/testService.js';
import { startAwsTarget, startLocalTarget, targetClient, type Target } from './targets.js';

/**
 * Issue 31's scheduling, black box, against `npm start` and `npm run aws:local`: a push's
 * priority, start_timeout and retries, and replay, behave the same over the local queue and
 * over SQS with the worker tasks.
 */
const FUNCTIONS = {
  'main.py': `import os, time
import sluice

@sluice.function(name="flaky", retries=2)
def flaky(token: str, failures: int) -> str:
    marker = f"/tmp/sluice-flaky-{token}"
    runs = int(open(marker).read()) + 1 if os.path.exists(marker) else 1
    with open(marker, "w") as f:
        f.write(str(runs))
    if runs <= failures:
        raise ValueError(f"run {runs} failed")
    return f"succeeded on run {runs}"

@sluice.function(name="queued", maximum_replicas=1)
def queued(tag: str, seconds: float) -> str:
    time.sleep(seconds)
    return tag
`,
};

const targets = ['local', 'aws'] as const;

describe.each(targets)('scheduling in the %s mode', (mode) => {
  let target: Target;
  const { call, push, awaitJob } = targetClient(() => target);
  const token = `${mode}-${process.pid}`;

  beforeAll(async () => {
    target = mode === 'aws' ? await startAwsTarget() : await startLocalTarget();
    const deployed = await runCli(['deploy', await writeFunctionDir(FUNCTIONS)], { SLUICE_URL: target.url, SLUICE_API_KEY: target.key }, 240_000);
    expect(deployed.code, deployed.stdout + deployed.stderr).toBe(0);
  }, 300_000);
  afterAll(async () => {
    await target?.close();
  });

  it("runs a job that raises again after a backoff, up to the function's retries=, each retry a restart entry", async () => {
    const job = await awaitJob(await push('flaky', { token: `${token}-twice`, failures: 2 }));
    expect(job).toMatchObject({ status: 'finished', retries: 2, error: '' });
    expect(job.outputs[0].data).toBe('succeeded on run 3');
    expect(job.restarts.map((restart: { type: string; retry: number }) => [restart.type, restart.retry])).toEqual([
      ['error', 1],
      ['error', 2],
    ]);
    const spent = await awaitJob(await push('flaky', { token: `${token}-always`, failures: 9 }));
    expect(spent.status).toBe('error');
    expect(spent.error).toContain('run 3 failed');
  }, 120_000);

  it('starts a higher priority job ahead of those queued before it, and cancels one not started by its start_timeout', async () => {
    const blocker = await push('queued', { tag: 'blocker', seconds: 3 });
    await until(async () => (await call('GET', `/v2/jobs/${blocker}`)).body.status === 'processing', 60_000, 100);
    const plain = [];
    for (const tag of ['p1', 'p2', 'p3']) plain.push(await push('queued', { tag, seconds: 0.2 }));
    const urgent = await push('queued', { tag: 'urgent', seconds: 0.2 }, { priority: 5 });
    const late = await push('queued', { tag: 'late', seconds: 0.2 }, { start_timeout: 1 });
    const [urgentJob, ...plainJobs] = await Promise.all([urgent, ...plain].map(awaitJob));
    expect(urgentJob.status).toBe('finished');
    for (const job of plainJobs) expect(job.started_at > urgentJob.started_at, `${job.inputs.tag} started after urgent`).toBe(true);
    const lateJob = await awaitJob(late);
    expect(lateJob).toMatchObject({ status: 'cancelled', started_at: null, start_timeout: 1, error: 'The job did not start within its start_timeout of 1 s.' });
  }, 180_000);

  it('replays a job with its inputs, linking the two, and refuses a job that does not exist', async () => {
    const original = await push('queued', { tag: 'again', seconds: 0 });
    expect((await awaitJob(original)).status).toBe('finished');
    const replayed = await call('POST', `/v2/jobs/${original}/replay`, { version: 'latest' });
    expect(replayed.status).toBe(200);
    const job = await awaitJob(replayed.body.id);
    expect(job).toMatchObject({ status: 'finished', replay_of: original, inputs: { tag: 'again', seconds: 0 } });
    expect(job.outputs[0].data).toBe('again');
    expect((await call('GET', `/v2/jobs/${original}`)).body.replays).toEqual([replayed.body.id]);
    expect((await call('POST', '/v2/jobs/no-such-job/replay')).status).toBe(404);
  }, 120_000);
});
