import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../e2e/support/cli.js';
import { api, until, writeFunctionDir } from '../e2e/support/testService.js';
import { startAwsTarget, type AwsTarget } from './targets.js';

/**
 * What only the AWS mode has: ECS tasks that scale with the queue and images that may not
 * start. Run on `npm run aws:local`'s emulation, where a minute of AWS's scaling is a second.
 */
const FUNCTIONS = {
  'main.py': `import time
import sluice

@sluice.function(name="busy", maximum_replicas=2)
def busy(seconds: float) -> str:
    time.sleep(seconds)
    return "done"

@sluice.function(name="long", minimum_replicas=2, maximum_replicas=2)
def long(seconds: float) -> str:
    print("run started", flush=True)
    time.sleep(seconds)
    return "done"

@sluice.function(name="starved", gpu=sluice.gpu.T4())
def starved(x: str) -> str:
    return x

@sluice.function(name="woken")
def woken(x: str) -> str:
    return x

@sluice.function(name="caller")
def caller(x: str) -> str:
    return sluice.function.get("local/woken").run(x=x)

@sluice.function(name="unstartable")
def unstartable(x: str) -> str:
    return x
`,
};

describe('worker tasks on AWS', () => {
  let target: AwsTarget;
  const call = (method: string, path: string, body?: unknown) => api(target.url, target.key, method, path, body);
  const push = async (fn: string, inputs: Record<string, unknown>) => (await call('POST', '/v2/push', { function: `local/${fn}`, inputs })).body.id as string;
  const job = async (id: string) => (await call('GET', `/v2/jobs/${id}`)).body;
  const tasksOf = (versionId: string) => target.ecs.list().filter((task) => task.service === `v-${versionId}`);
  const latestVersion = async (fn: string) => (await call('GET', `/v2/functions/local/${fn}/versions`)).body[0];

  beforeAll(async () => {
    // SQS's 12-hour cap on a message's invisibility, reached in 15 s; an account with no T4 instances to give (a G vCPU quota of 0), whose tasks wait 3 s in PROVISIONING;
    // a queue asleep (no metrics) after two idle minutes instead of six hours, its metrics back 15 minutes (15 s) after it wakes, as AWS's.
    target = await startAwsTarget({
      sqsMaxVisibilitySeconds: 15,
      noCapacityFor: ['t4'],
      provisioningTimeoutMs: 3000,
      sqsMetricTimes: { delaySeconds: 60, idleSeconds: 120, wakeSeconds: 900 },
    });
    const deployed = await runCli(['deploy', await writeFunctionDir(FUNCTIONS)], { SLUICE_URL: target.url, SLUICE_API_KEY: target.key }, 240_000);
    expect(deployed.code, deployed.stdout + deployed.stderr).toBe(0);
  }, 300_000);
  afterAll(async () => target?.close());

  it('starts a task for a push to a version idle for hours at once, scales with its queue, stops the idle task first and never the busy one, then goes back to zero', async () => {
    const version = (await latestVersion('busy')).id as string;
    expect(tasksOf(version)).toHaveLength(0);
    // Past the idle time: SQS publishes nothing for the queue, and will for 15 (emulated) minutes after the push.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const pushedAt = Date.now();
    const long = await push('busy', { seconds: 12 });
    await until(async () => (await job(long)).status === 'processing', 60_000, 200);
    // Woken by the push, not by the queue's alarm, which could not fire before 15 s.
    expect(Date.now() - pushedAt).toBeLessThan(10_000);
    const short = await push('busy', { seconds: 1 });
    await until(async () => (await job(short)).status === 'finished', 60_000, 200);
    expect(tasksOf(version)).toHaveLength(2);
    const [first] = tasksOf(version);
    // The backlog is down to the long job: one task is enough, and it must be the busy one.
    await until(async () => tasksOf(version).length === 1, 30_000, 200);
    expect(tasksOf(version)[0]?.id).toBe(first?.id);
    await until(async () => (await job(long)).status === 'finished', 60_000, 200);
    expect((await job(long)).restarts ?? []).toHaveLength(0);
    // Idle for its scale-down window, five (emulated) minutes: back to the minimum, zero.
    await until(async () => tasksOf(version).length === 0, 60_000, 200);
  }, 180_000);

  it('wakes a version idle for hours at once for a child job a running job pushes, as for a push', async () => {
    const parent = await push('caller', { x: 'hello' });
    await until(async () => (await job(parent)).status === 'finished', 90_000, 200);
    expect((await job(parent)).outputs[0].data).toBe('hello');
    const [child] = (await call('GET', '/v2/functions/local/woken/jobs?limit=1')).body.data;
    // The child's queue alarm could not fire within 15 s: its version was started by the wake.
    expect(Date.parse(`${child.started_at}Z`) - Date.parse(`${(await job(parent)).started_at}Z`)).toBeLessThan(10_000);
  }, 120_000);

  it('starts worker tasks as their task definition says: no new privileges, only the capabilities the agent keeps', async () => {
    const version = (await latestVersion('long')).id as string;
    await until(async () => tasksOf(version).length > 0, 60_000, 200);
    const status = readFileSync(`/proc/${tasksOf(version)[0]?.child.pid}/status`, 'utf8');
    expect(status).toMatch(/^NoNewPrivs:\s+1$/m);
    // CHOWN, DAC_OVERRIDE, FOWNER, KILL, SETGID, SETUID: bits 0, 1, 3, 5, 6, 7 (as root only can the emulation set them).
    if (process.getuid?.() === 0) expect(status).toMatch(/^CapBnd:\s+00000000000000eb$/m);
  });

  // Two tasks: the idle one receives the message SQS lets go of while the other runs its job.
  it('runs a job that outlasts its queue message’s longest invisibility once, without a restart', async () => {
    const id = await push('long', { seconds: 32 });
    await until(async () => (await job(id)).status === 'finished', 90_000, 250);
    const finished = await job(id);
    expect(finished.restarts ?? []).toEqual([]);
    expect(finished.outputs).toHaveLength(1);
    const logs = (await call('GET', `/v2/logs?job_id=${id}`)).body.data.flatMap((entry: any) => entry.logs.map((line: any) => line.message));
    expect(logs.filter((line: string) => line === 'run started')).toHaveLength(1);
  }, 120_000);

  it('runs such a job again once when its worker dies after the queue let go of it', async () => {
    const id = await push('long', { seconds: 26 });
    await until(async () => (await job(id)).status === 'processing', 60_000, 200);
    // Past the 15 s cap the job is held by its lease alone; then its task is lost with it.
    await new Promise((resolve) => setTimeout(resolve, 19_000));
    const version = (await latestVersion('long')).id as string;
    for (const task of tasksOf(version)) process.kill(-(task.child.pid as number), 'SIGKILL');
    await until(async () => (await job(id)).status === 'finished', 120_000, 250);
    const restarts = (await job(id)).restarts as { reason: string }[];
    expect(restarts.map((restart) => restart.reason)).toEqual(['The worker running the job stopped answering.']);
  }, 180_000);

  it('keeps a version whose tasks find no instance ready, its jobs queued, with a warning that says why and which quota to raise', async () => {
    const id = await push('starved', { x: 'hello' });
    const version = (await latestVersion('starved')).id as string;
    const setupLines = async () =>
      (await call('GET', `/v2/logs?version_id=${version}`)).body.data.flatMap((entry: any) =>
        entry.logs.map((line: any) => line.message as string),
      ) as string[];
    // More stops than end a version whose image cannot start.
    await until(async () => (await setupLines()).filter((line) => line.startsWith('A worker task found no instance to run on')).length >= 4, 90_000, 500);
    const shown = await latestVersion('starved');
    expect(shown.build_status).toBe('ready');
    expect(shown.warning).toMatch(
      /^Its t4 worker tasks are waiting for an instance \(ECS: "Timeout waiting for capacity.*"\); its jobs stay queued until one starts\. If it lasts, raise the EC2 quota "Running On-Demand G and VT instances"/,
    );
    expect((await job(id)).status).toBe('queued');
    expect((await call('POST', '/v2/push', { function: 'local/starved', inputs: { x: 'again' } })).body.warning).toBe(shown.warning);
  }, 120_000);

  it('ends a version whose tasks keep failing to start in error, saying why, stops its tasks and ends its queued jobs', async () => {
    const version = (await latestVersion('unstartable')).id as string;
    // An image whose entry crashes at start, as one built for another CPU or missing a library would.
    const image = readdirSync(join(target.dataDir, 'images')).find((name) => name.endsWith(version));
    expect(image).toBeDefined();
    writeFileSync(join(target.dataDir, 'images', image as string, 'worker', 'worker.mjs'), "console.error('cannot start'); process.exit(3);\n");
    const id = await push('unstartable', { x: 'hello' });
    await until(async () => (await job(id)).status === 'error', 90_000, 250);
    expect((await job(id)).error).toMatch(
      /The version's tasks cannot run: Its worker tasks failed 3 times in a row; the last: Essential container in task exited \(exit code 3\)/,
    );
    expect((await latestVersion('unstartable')).build_status).toBe('error');
    const logs = (await call('GET', `/v2/logs?version_id=${version}`)).body.data.flatMap((entry: any) => entry.logs.map((line: any) => line.message));
    expect(logs).toContain('A worker task stopped: Essential container in task exited (exit code 3)');
    // ECS is told to run none: no task is started again.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(tasksOf(version)).toHaveLength(0);
  }, 150_000);
});
