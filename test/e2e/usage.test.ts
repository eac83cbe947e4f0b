import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTimestamp } from '../../shared/domain/time.js';
import { usageReportWireSchema } from '../../shared/domain/wire/usage.js';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, startTestService, until, waitForBuild, writeFunctionDir } from './support/testService.js';

const napper = (name: string, gpu: string) => `import sluice, time

@sluice.function(name="${name}"${gpu})
def nap(seconds: float) -> str:
    time.sleep(seconds)
    return "rested"
`;

const seconds = (job: any) => (parseTimestamp(job.completed_at) - parseTimestamp(job.started_at)) / 1e6;

describe('usage and cost', () => {
  let service: TestService;
  const call = (method: string, path: string, body?: unknown) => api(service.url, service.key, method, path, body);
  const run = async (fn: string, inputs: Record<string, unknown>) => {
    const { body } = await call('POST', '/v2/push', { function: `local/${fn}`, inputs });
    return (await call('GET', `/v2/jobs/${body.id}/await`)).body;
  };
  const jobs: Record<string, any[]> = { cpu: [], t4: [], a100: [] };

  beforeAll(async () => {
    // Round prices make the expected costs easy to read.
    service = await startTestService({ SLUICE_PRICE_CPU: '0.5', SLUICE_PRICE_T4: '1', SLUICE_PRICE_A100: '2', SLUICE_IDLE_TIMEOUT_S: '60' });
    for (const [name, gpu] of [
      ['on-cpu', ''],
      ['on-t4', ', gpu=sluice.gpu.T4(split=2)'],
      ['on-a100', ', gpu=sluice.gpu.A100()'],
    ] as const) {
      const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': napper(name, gpu) }));
      await waitForBuild(service, `local/${name}`, deployed.body.version.id);
    }
    jobs.cpu!.push(await run('on-cpu', { seconds: 0.2 }));
    jobs.t4!.push(await run('on-t4', { seconds: 0.3 }), await run('on-t4', { seconds: 0.1 }));
    jobs.a100!.push(await run('on-a100', { seconds: 0.2 }));
  }, 60_000);
  afterAll(() => service.close());

  it('accrues each job’s time from started_at to completed_at on its machine type, cost divided by split', async () => {
    const report = usageReportWireSchema.parse((await call('GET', '/v2/usage')).body) as any;
    const cpu = seconds(jobs.cpu![0]);
    const t4 = jobs.t4!.reduce((sum, job) => sum + seconds(job), 0);
    const a100 = seconds(jobs.a100![0]);
    expect(report.cpu.compute_seconds).toBeCloseTo(cpu, 6);
    expect(report.cpu.cost_dollars).toBeCloseTo(cpu * 0.5, 6);
    expect(report.t4.compute_seconds).toBeCloseTo(t4, 6);
    expect(report.t4.cost_dollars).toBeCloseTo((t4 * 1) / 2, 6);
    expect(report.a100.cost_dollars).toBeCloseTo(a100 * 2, 6);
    expect(report.l4).toEqual({ compute_seconds: 0, cost_dollars: 0 });
  });

  it('makes the totals the sums over machine types', async () => {
    const report = (await call('GET', '/v2/usage')).body;
    const classes = ['cpu', 'a100', 'a100-20gb', 'v100', 'l4', 't4', 'other'];
    expect(report.total_compute_seconds).toBeCloseTo(
      classes.reduce((sum, c) => sum + report[c].compute_seconds, 0),
      9,
    );
    expect(report.total_cost_dollars).toBeCloseTo(
      classes.reduce((sum, c) => sum + report[c].cost_dollars, 0),
      9,
    );
  });

  it('reports one version’s usage, and one job’s', async () => {
    const version = (await call('GET', '/v2/usage/function/local/on-t4/versions/latest')).body;
    expect(version.cpu.compute_seconds).toBe(0);
    expect(version.t4.compute_seconds).toBeCloseTo(
      jobs.t4!.reduce((sum, job) => sum + seconds(job), 0),
      3,
    );
    const job = (await call('GET', `/v2/usage/job/${jobs.a100![0].id}`)).body;
    expect(job).toMatchObject({
      job_id: jobs.a100![0].id,
      function_name: 'on-a100',
      function_owner_name: 'local',
      function_id: jobs.a100![0].function_id,
      aggregated: true,
    });
    expect(job.cost).toBeCloseTo(seconds(jobs.a100![0]) * 2, 3);
  });

  it('reads ranges as float seconds or integer nanoseconds, in whole hours, and defaults to this month', async () => {
    const now = Date.now() / 1000;
    const hourAgo = now - 3600;
    const inSeconds = (await call('GET', `/v2/usage?start_timestamp=${hourAgo}&end_timestamp=${now + 1}`)).body;
    const inNanos = (
      await call(
        'GET',
        `/v2/usage?start_timestamp=${BigInt(Math.floor(hourAgo)) * 1_000_000_000n}&end_timestamp=${BigInt(Math.ceil(now + 1)) * 1_000_000_000n}`,
      )
    ).body;
    const byDefault = (await call('GET', '/v2/usage')).body;
    expect(inSeconds.total_compute_seconds).toBeGreaterThan(0);
    expect(inNanos).toEqual(inSeconds);
    expect(byDefault.total_compute_seconds).toBeCloseTo(inSeconds.total_compute_seconds, 6);
    const lastYear = (await call('GET', `/v2/usage?start_timestamp=${now - 400 * 86400}&end_timestamp=${now - 300 * 86400}`)).body;
    expect(lastYear.total_compute_seconds).toBe(0);
  });

  it('reports one function’s usage, and the usage of each function used, keyed owner/name', async () => {
    const t4 = jobs.t4!.reduce((sum, job) => sum + seconds(job), 0);
    const fn = (await call('GET', '/v2/usage/function/local/on-t4')).body;
    expect(fn.t4.compute_seconds).toBeCloseTo(t4, 3);
    expect(fn.cpu.compute_seconds).toBe(0);
    const perFunction = (await call('GET', '/v2/usage/function')).body;
    expect(Object.keys(perFunction)).toEqual(expect.arrayContaining(['local/on-cpu', 'local/on-t4', 'local/on-a100']));
    expect(perFunction['local/on-t4'].t4.compute_seconds).toBeCloseTo(t4, 3);
    expect(perFunction['local/on-a100'].a100.cost_dollars).toBeCloseTo(seconds(jobs.a100![0]) * 2, 3);
    expect(await call('GET', '/v2/usage/function/local/no-such-function')).toEqual({ status: 404, body: { detail: 'Function not found.' } });
  });

  it('answers Sieve’s 400 "Invalid timestamps provided." for a start after the end, or a timestamp it cannot read', async () => {
    for (const query of ['start_timestamp=2000000000&end_timestamp=1000000000', 'start_timestamp=yesterday', 'end_timestamp=1e9']) {
      expect(await call('GET', `/v2/usage?${query}`)).toEqual({ status: 400, body: { detail: 'Invalid timestamps provided.' } });
    }
    expect((await call('GET', '/v2/usage/function?start_timestamp=x')).status).toBe(400);
    expect((await call('GET', '/v2/logs?start_time=x')).body).toEqual({ detail: 'Invalid timestamps provided.' });
  });

  it('answers the organization’s credits as unlimited without a budget, with what this billing period cost', async () => {
    const credits = (await call('GET', '/v2/usage/credits')).body;
    expect(credits).toEqual({
      credits_remaining: null,
      unlimited: true,
      billing_period_cost_dollars: expect.any(Number),
      monthly_budget: null,
      budget_warning_at: 0.8,
      budget_warning: false,
      max_active_jobs: null,
    });
    expect(credits.billing_period_cost_dollars).toBeCloseTo((await call('GET', '/v2/usage')).body.total_cost_dollars, 9);
  });

  it('counts a job once even when its completion is reported again', async () => {
    const before = (await call('GET', '/v2/usage')).body.cpu.compute_seconds;
    const job = await service.running.app.services.jobs.get(await service.running.app.services.auth.authenticate(service.key), jobs.cpu![0].id);
    await service.running.app.services.usage.onJobEvent({ type: 'completed', job: job.job });
    expect((await call('GET', '/v2/usage')).body.cpu.compute_seconds).toBe(before);
  });

  it('bills the idle time of minimum replicas to the function’s owner', async () => {
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': napper('warm', ', minimum_replicas=1') }));
    await waitForBuild(service, 'local/warm', deployed.body.version.id);
    await until(async () => (await call('GET', '/v2/functions/local/warm/versions/latest')).body.current_workers.idle === 1);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const job = await run('warm', { seconds: 0 }); // a change of state brings the idle time to account
    const usage = (await call('GET', '/v2/usage/function/local/warm/versions/latest')).body;
    expect(usage.cpu.compute_seconds - seconds(job)).toBeGreaterThan(1.2);
  });
});
