import { readdirSync, writeFileSync } from 'node:fs';
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
    target = await startAwsTarget();
    const deployed = await runCli(['deploy', await writeFunctionDir(FUNCTIONS)], { SLUICE_URL: target.url, SLUICE_API_KEY: target.key }, 240_000);
    expect(deployed.code, deployed.stdout + deployed.stderr).toBe(0);
  }, 300_000);
  afterAll(async () => target?.close());

  it('scales a version from zero with its queue, stops the idle task first and never the one running a job, then goes back to zero', async () => {
    const version = (await latestVersion('busy')).id as string;
    expect(tasksOf(version)).toHaveLength(0);
    const long = await push('busy', { seconds: 12 });
    await until(async () => (await job(long)).status === 'processing', 60_000, 200);
    const short = await push('busy', { seconds: 1 });
    await until(async () => (await job(short)).status === 'finished', 60_000, 200);
    expect(tasksOf(version)).toHaveLength(2);
    const [first] = tasksOf(version);
    // The backlog is down to the long job: one task is enough, and it must be the busy one.
    await until(async () => tasksOf(version).length === 1, 30_000, 200);
    expect(tasksOf(version)[0]?.id).toBe(first?.id);
    await until(async () => (await job(long)).status === 'finished', 60_000, 200);
    expect((await job(long)).restarts ?? []).toHaveLength(0);
    // Idle for five (emulated) minutes: back to the minimum, zero.
    await until(async () => tasksOf(version).length === 0, 60_000, 200);
  }, 180_000);

  it('ends a version whose tasks keep failing to start in error, saying why, stops its tasks and ends its queued jobs', async () => {
    const version = (await latestVersion('unstartable')).id as string;
    // An image whose entry crashes at start, as one built for another CPU or missing a library would.
    const image = readdirSync(join(target.dataDir, 'images')).find((name) => name.endsWith(version));
    expect(image).toBeDefined();
    writeFileSync(join(target.dataDir, 'images', image as string, 'worker', 'worker.mjs'), "console.error('cannot start'); process.exit(3);\n");
    const id = await push('unstartable', { x: 'hello' });
    await until(async () => (await job(id)).status === 'error', 90_000, 250);
    expect((await job(id)).error).toMatch(/The version's tasks cannot run: Its worker tasks failed 3 times in a row; the last: Essential container in task exited \(exit code 3\)/);
    expect((await latestVersion('unstartable')).build_status).toBe('error');
    const logs = (await call('GET', `/v2/logs?version_id=${version}`)).body.data.flatMap((entry: any) => entry.logs.map((line: any) => line.message));
    expect(logs).toContain('A worker task stopped: Essential container in task exited (exit code 3)');
    // ECS is told to run none: no task is started again.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(tasksOf(version)).toHaveLength(0);
  }, 150_000);
});
