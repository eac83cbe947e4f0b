import { DescribeScalableTargetsCommand } from '@aws-sdk/client-application-auto-scaling';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../e2e/support/cli.js';
import { api, writeFunctionDir, type ApiResponse } from '../e2e/support/testService.js';
import { startWebhookReceiver } from '../e2e/support/webhookReceiver.js';
import { componentProblems, responseProblems, SIEVE_OPERATIONS } from '../support/sieveSchemas.js';
import { startAwsTarget, startLocalTarget, type AwsTarget, type Target } from './targets.js';

/**
 * Every operation of Sieve's OpenAPI document, called as a Sieve client would against
 * `npm start` and against `npm run aws:local`, each answer checked against the document's
 * schema for it: a Sieve program reads Sluice's answers as it reads Sieve's.
 */
const FUNCTIONS = {
  'main.py': `import time
import sluice

@sluice.function(name="echo")
def echo(text: str) -> str:
    print(f"echo {text}")
    return text

@sluice.function(name="relay")
def relay(text: str) -> str:
    return sluice.function.get("local/echo").run(text=text)

@sluice.function(name="sleepy")
def sleepy(seconds: float) -> str:
    time.sleep(seconds)
    return "awake"
`,
};

/** The webhook bodies each event type posts, by the document's schemas. */
const WEBHOOK_SCHEMAS: Record<string, string> = {
  'job.start': 'WebhookResult_JobResponse_',
  'job.complete': 'WebhookResult_JobResponse_',
  'job.complete.no_output': 'WebhookResult_JobWithoutOutputResponse_',
  'job.new_output': 'WebhookResult_NewOutputResponse_',
};

/** A concrete path for a template of the document: each {param} becomes a plausible value. */
const concretePath = (template: string) => template.replace(/\{(\w+)\}/g, (_, name: string) => `some-${name}`);

const minute = (date: Date) => date.toISOString().slice(0, 16);

describe.each(['local', 'aws'] as const)('Sieve’s API document, operation by operation, in the %s mode', (mode) => {
  let target: Target;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let relayJob = '';
  let sleepyJob = '';
  const call = (method: string, path: string, body?: unknown) => api(target.url, target.key, method, path, body);

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    target = mode === 'aws' ? await startAwsTarget() : await startLocalTarget();
    const deployed = await runCli(['deploy', await writeFunctionDir(FUNCTIONS)], { SLUICE_URL: target.url, SLUICE_API_KEY: target.key }, 240_000);
    expect(deployed.code, deployed.stdout + deployed.stderr).toBe(0);
    // Every event type, and Sieve's legacy names for two of them.
    const webhooks = [...Object.keys(WEBHOOK_SCHEMAS), 'job_start', 'job_complete'].map((type) => ({ type, url: receiver.url(`/${mode}`) }));
    const pushed = await call('POST', '/v2/push', { function: 'local/relay', inputs: { text: 'hi' }, webhooks, env: null });
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
    relayJob = pushed.body.id;
    const done = await api(target.awaitBase.replace(/\/$/, ''), target.key, 'GET', `/v2/jobs/${relayJob}/await`);
    expect(done.body.status, JSON.stringify(done.body)).toBe('finished');
    sleepyJob = (await call('POST', '/v2/push', { function: 'local/sleepy', inputs: [600] })).body.id;
  }, 400_000);
  afterAll(async () => {
    await target?.close();
    await receiver?.close();
  });

  const today = () => new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000);
  const OPERATIONS: Record<string, () => Promise<ApiResponse<any>>> = {
    list_functions: () => call('GET', '/v2/functions'),
    get_function: () => call('GET', '/v2/functions/local/relay'),
    edit_function: () => call('POST', '/v2/functions/local/echo/edit', { description: 'Says it back.', webhooks: null, tags: ['demo'] }),
    get_function_versions: () => call('GET', '/v2/functions/local/echo/versions'),
    get_function_version: () => call('GET', '/v2/functions/local/echo/versions/latest'),
    get_function_jobs_by_version_slug: () => call('GET', '/v2/functions/local/echo/versions/latest/jobs'),
    edit_function_version: () => call('POST', '/v2/functions/local/echo/versions/latest/edit', { minimum_replicas: 0, maximum_replicas: 2 }),
    list_function_jobs: () => call('GET', '/v2/functions/local/relay/jobs?status='),
    get_concurrency_info: () => call('GET', '/v2/user/concurrency'),
    organization_usage: () => call('GET', '/v2/usage'),
    function_usage: () => call('GET', '/v2/usage/function/local/relay'),
    function_version_usage: () => call('GET', '/v2/usage/function/local/relay/versions/latest'),
    usage_per_function: () => call('GET', '/v2/usage/function'),
    get_job_cost: () => call('GET', `/v2/usage/job/${relayJob}?aggregated=true`),
    get_org_credits: () => call('GET', '/v2/usage/credits'),
    get_concurrency_stats: () => call('GET', `/v2/usage/concurrency?start=${minute(today())}&end=${minute(new Date())}&chunk_size=30&status=`),
    cancel_job: () => call('DELETE', `/v2/jobs/${sleepyJob}`),
    get_job: () => call('GET', `/v2/jobs/${relayJob}`),
    v2_list_jobs: () => call('GET', '/v2/jobs'),
    get_job_await: () => api(target.awaitBase.replace(/\/$/, ''), target.key, 'GET', `/v2/jobs/${relayJob}/await`),
    get_logs: () => call('GET', `/v2/logs?job_id=${relayJob}`),
    push_new_job: () => call('POST', '/v2/push', { function: 'local/echo', inputs: ['positional'] }),
    get_compute_availability: () => call('GET', '/v2/services/compute'),
  };

  it('walks every operation the document has', () => {
    expect(Object.keys(OPERATIONS).sort()).toEqual(SIEVE_OPERATIONS.map((operation) => operation.operationId).sort());
  });

  it.each(SIEVE_OPERATIONS.map((operation) => operation.operationId))('answers %s in the document’s shape', async (operationId) => {
    const { status, body } = await (OPERATIONS[operationId] as () => Promise<ApiResponse<any>>)();
    expect(status, JSON.stringify(body)).toBe(200);
    expect(responseProblems(operationId, status, body), JSON.stringify(body)).toEqual([]);
  });

  it('answers every operation without a key with the document’s 401 body', async () => {
    for (const operation of SIEVE_OPERATIONS) {
      const response = await fetch(`${target.url}${concretePath(operation.path)}`, { method: operation.method });
      const body = await response.json();
      expect([operation.operationId, response.status, responseProblems(operation.operationId, response.status, body)]).toEqual([
        operation.operationId,
        401,
        [],
      ]);
    }
  });

  it.runIf(mode === 'aws')('registers an edited version’s replica bounds with its ECS service’s scaling, without a redeploy', async () => {
    const edited = (await call('POST', '/v2/functions/local/sleepy/versions/latest/edit', { minimum_replicas: 0, maximum_replicas: 3 })).body;
    expect(edited.maximum_replicas).toBe(3);
    const { ScalableTargets = [] } = await (target as AwsTarget).clients.autoScaling.send(new DescribeScalableTargetsCommand({ ServiceNamespace: 'ecs' }));
    const scaling = ScalableTargets.find((candidate) => candidate.ResourceId?.endsWith(`/v-${edited.id}`));
    expect(scaling).toMatchObject({ MinCapacity: 0, MaxCapacity: 3 });
  });

  it('answers a validation error in the document’s HTTPValidationError shape', async () => {
    const { status, body } = await call('GET', '/v2/jobs?limit=many');
    expect(status).toBe(422);
    expect(responseProblems('v2_list_jobs', status, body)).toEqual([]);
  });

  it('posts each webhook event as the document prints it, legacy names delivered as today’s', async () => {
    const hooks = await receiver.waitFor(`/${mode}`, 6, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const types = receiver.at(`/${mode}`).map((hook) => hook.body.type);
    // job_start and job_complete subscribe to job.start and job.complete: each is sent twice.
    expect(types.sort()).toEqual(['job.complete', 'job.complete', 'job.complete.no_output', 'job.new_output', 'job.start', 'job.start']);
    for (const hook of hooks) expect([hook.body.type, componentProblems(WEBHOOK_SCHEMAS[hook.body.type] as string, hook.body)]).toEqual([hook.body.type, []]);
  });
});
