import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, startTestService, until, waitForBuild, writeFunctionDir } from './support/testService.js';

const OPERATOR_TOKEN = 'operator-token-0123456789';

const SLEEPY = `import sluice, time

@sluice.function(name="sleepy")
def sleepy(seconds: float) -> str:
    time.sleep(seconds)
    return "woke"
`;

describe('budgets and quotas set by the operator', () => {
  let service: TestService;
  const call = (method: string, path: string, body?: unknown) => api(service.url, service.key, method, path, body);
  const operator = async (method: string, path: string, body?: unknown, authorization = `Bearer ${OPERATOR_TOKEN}`) => {
    const headers: Record<string, string> = { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
    const response = await fetch(`${service.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as any };
  };
  const setLimits = (body: unknown) => operator('POST', '/v2/operator/organizations/local/limits', body);
  const push = (seconds: number, headers: Record<string, string> = {}) =>
    fetch(`${service.url}/v2/push`, {
      method: 'POST',
      headers: { 'x-api-key': service.key, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ function: 'local/sleepy', inputs: { seconds } }),
    });
  const jobCount = async () => ((await call('GET', '/v2/functions/local/sleepy/jobs?limit=100')).body.data as unknown[]).length;

  beforeAll(async () => {
    service = await startTestService({ SLUICE_OPERATOR_TOKEN: OPERATOR_TOKEN });
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': SLEEPY }));
    await waitForBuild(service, 'local/sleepy', deployed.body.version.id);
  }, 120_000);
  afterAll(() => service.close());

  it("refuses an organization's own API key on the operator routes, however it is sent", async () => {
    expect((await operator('GET', '/v2/operator/organizations', undefined, `Bearer ${service.key}`)).status).toBe(401);
    const byKeyHeader = await api(service.url, service.key, 'POST', '/v2/operator/organizations/local/limits', { monthly_budget: 1e9 });
    expect(byKeyHeader.status).toBe(401);
    expect(byKeyHeader.body.detail).toMatch(/Authorization: Bearer <SLUICE_OPERATOR_TOKEN>/);
    expect((await call('GET', '/v2/usage/credits')).body.monthly_budget).toBeNull();
  });

  it('lets the operator read and change limits, refusing values out of bounds with 422 by field', async () => {
    expect((await operator('GET', '/v2/operator/organizations/local/limits')).body).toEqual({
      organization: 'local',
      weight: 1,
      monthly_budget: null,
      max_active_jobs: null,
      budget_warning_at: 0.8,
    });
    const refused = await setLimits({ weight: 0, budget_warning_at: 2 });
    expect(refused.status).toBe(422);
    expect(refused.body.detail.map((issue: { loc: string[] }) => issue.loc)).toEqual([
      ['body', 'weight'],
      ['body', 'budget_warning_at'],
    ]);
    expect((await setLimits({ weight: 3 })).body.weight).toBe(3);
    expect((await operator('GET', '/v2/operator/organizations')).body.data).toContainEqual(expect.objectContaining({ organization: 'local', weight: 3 }));
    expect((await operator('GET', '/v2/operator/organizations/nobody/limits')).status).toBe(404);
  });

  it('answers credits as unlimited without a budget, and as what is left of it with one', async () => {
    expect((await call('GET', '/v2/usage/credits')).body).toMatchObject({ credits_remaining: null, unlimited: true, monthly_budget: null });
    await setLimits({ monthly_budget: 100 });
    const credits = (await call('GET', '/v2/usage/credits')).body;
    expect(credits).toMatchObject({ unlimited: false, monthly_budget: 100, budget_warning_at: 0.8, budget_warning: false });
    expect(credits.credits_remaining).toBeCloseTo(100 - credits.billing_period_cost_dollars, 9);
    await setLimits({ monthly_budget: null });
  });

  it('refuses a push with 402 once the month has cost the budget, writing nothing, not even its Idempotency-Key', async () => {
    expect((await (await push(0.2)).json()) as { id: string }).toHaveProperty('id');
    await until(async () => (await call('GET', '/v2/usage/credits')).body.billing_period_cost_dollars > 0);
    const spent = (await call('GET', '/v2/usage/credits')).body.billing_period_cost_dollars as number;
    await setLimits({ monthly_budget: spent / 2 });
    expect((await call('GET', '/v2/usage/credits')).body).toMatchObject({ credits_remaining: 0, budget_warning: true });
    const before = await jobCount();

    const refused = await push(0, { 'idempotency-key': 'over-budget' });
    expect(refused.status).toBe(402);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(
      /monthly budget of \$[\d.]+ of organization "local" is spent: \$[\d.]+ spent in \d{4}-\d\d/,
    );
    expect(await jobCount()).toBe(before);

    await setLimits({ monthly_budget: null });
    // The key was not kept: the same key with another request is a new push, not a 422.
    const accepted = await fetch(`${service.url}/v2/push`, {
      method: 'POST',
      headers: { 'x-api-key': service.key, 'content-type': 'application/json', 'idempotency-key': 'over-budget' },
      body: JSON.stringify({ function: 'local/sleepy', inputs: { seconds: 0.01 } }),
    });
    expect(accepted.status).toBe(200);
    const { id } = (await accepted.json()) as { id: string };
    expect((await call('GET', `/v2/jobs/${id}/await`)).body.status).toBe('finished');
  }, 60_000);

  it('refuses a push with 429 while the organization has max_active_jobs queued or processing', async () => {
    await setLimits({ max_active_jobs: 1 });
    const first = await push(30);
    expect(first.status).toBe(200);
    const running = ((await first.json()) as { id: string }).id;
    const refused = await push(0);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeTruthy();
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/has 1 jobs queued or processing; its cap \(max_active_jobs\) is 1/);

    expect((await call('DELETE', `/v2/jobs/${running}`)).status).toBe(200);
    await until(async () => (await push(0)).status === 200);
    await setLimits({ max_active_jobs: null });
  }, 60_000);
});

describe('the operator API without SLUICE_OPERATOR_TOKEN', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.close());

  it('answers 404: the API is off', async () => {
    const response = await fetch(`${service.url}/v2/operator/organizations/local/limits`, { headers: { authorization: 'Bearer anything-at-all-here' } });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/only when SLUICE_OPERATOR_TOKEN is set/);
  });
});
