import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, startTestService, until, waitForBuild, writeFunctionDir } from './support/testService.js';

describe('replicas', () => {
  let service: TestService;
  const call = (method: string, path: string, body?: unknown) => api(service.url, service.key, method, path, body);
  const workers = async (fn: string) => (await call('GET', `/v2/functions/local/${fn}/versions/latest`)).body.current_workers;

  beforeAll(async () => {
    service = await startTestService({ SLUICE_IDLE_TIMEOUT_S: '1' });
  });
  afterAll(() => service.close());

  it('keeps minimum_replicas warm after setup, and reports them idle', async () => {
    const source = `import sluice, time\n\n@sluice.function(name="warm", minimum_replicas=2, maximum_replicas=2)\nclass Warm:\n    def __setup__(self):\n        time.sleep(0.3)\n\n    def __predict__(self) -> str:\n        return "ok"\n`;
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': source }));
    await waitForBuild(service, 'local/warm', deployed.body.version.id);
    await until(async () => (await workers('warm')).idle === 2);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // past the idle window: minimum replicas stay
    expect(await workers('warm')).toEqual({ starting: 0, setup: 0, active: 0, idle: 2, awaiting_resources: 0 });
  });

  it('scales up to maximum_replicas on queue depth, reports them active, and stops idle ones after the idle window', async () => {
    const source = `import sluice, time\n\n@sluice.function(name="burst", maximum_replicas=3)\ndef burst(seconds: float) -> str:\n    time.sleep(seconds)\n    return "done"\n`;
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': source }));
    await waitForBuild(service, 'local/burst', deployed.body.version.id);
    const jobs = await Promise.all([1, 2, 3, 4].map(() => call('POST', '/v2/push', { function: 'local/burst', inputs: { seconds: 1 } })));
    await until(async () => (await workers('burst')).active === 3);
    for (const { body } of jobs) expect((await call('GET', `/v2/jobs/${body.id}/await`)).body.status).toBe('finished');
    await until(async () => {
      const counts = await workers('burst');
      return counts.idle + counts.active + counts.starting + counts.setup === 0;
    });
  });

  it('takes edited replica bounds at once, without a redeploy: a raised minimum starts replicas, a lowered one lets them go', async () => {
    const source = `import sluice\n\n@sluice.function(name="tunable")\ndef tunable() -> str:\n    return "ok"\n`;
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': source }));
    await waitForBuild(service, 'local/tunable', deployed.body.version.id);
    expect(await workers('tunable')).toMatchObject({ idle: 0, starting: 0, setup: 0 });
    const raised = await call('POST', '/v2/functions/local/tunable/versions/latest/edit', { minimum_replicas: 2, maximum_replicas: 4 });
    expect(raised.status).toBe(200);
    expect(raised.body).toMatchObject({ id: deployed.body.version.id, minimum_replicas: 2, maximum_replicas: 4, build_status: 'ready' });
    await until(async () => (await workers('tunable')).idle === 2);
    // null leaves a bound as it is.
    const lowered = await call('POST', `/v2/functions/local/tunable/versions/${deployed.body.version.id.slice(0, 8)}/edit`, {
      minimum_replicas: 1,
      maximum_replicas: null,
    });
    expect(lowered.body).toMatchObject({ minimum_replicas: 1, maximum_replicas: 4 });
    await until(async () => (await workers('tunable')).idle === 1, 10_000);
    const capped = await call('POST', '/v2/functions/local/tunable/versions/latest/edit', { minimum_replicas: 0, maximum_replicas: 0 });
    expect(capped.body).toMatchObject({ minimum_replicas: 0, maximum_replicas: 0 });
    expect((await call('GET', '/v2/functions/local/tunable/versions/latest')).body).toMatchObject({ minimum_replicas: 0, maximum_replicas: 0 });
  });

  it('keeps an idle replica for the version’s own scaledown_window instead of the deployment’s, and goes back to it on null', async () => {
    const source = `import sluice\n\n@sluice.function(name="lingering")\ndef lingering() -> str:\n    return "ok"\n`;
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': source }));
    await waitForBuild(service, 'local/lingering', deployed.body.version.id);
    const edited = await call('POST', '/v2/functions/local/lingering/versions/latest/edit', { scaledown_window: 5 });
    expect(edited.body).toMatchObject({ scaledown_window: 5, buffer_replicas: 0, minimum_replicas: 0 });
    const run = async () => (await call('POST', '/v2/push', { function: 'local/lingering', inputs: {} })).body.id as string;
    expect((await call('GET', `/v2/jobs/${await run()}/await`)).body.status).toBe('finished');
    // The deployment's window is 1 s: past it, the replica is still up for the next job.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await workers('lingering')).idle).toBe(1);
    await until(async () => (await workers('lingering')).idle === 0, 10_000);
    const reset = await call('POST', '/v2/functions/local/lingering/versions/latest/edit', { scaledown_window: null });
    expect(reset.body).toMatchObject({ scaledown_window: null });
  });

  it('keeps buffer_replicas idle replicas ready beyond what its jobs need while it has any, and none once idle', async () => {
    const source = `import sluice, time\n\n@sluice.function(name="buffered", maximum_replicas=4)\ndef buffered(seconds: float) -> str:\n    time.sleep(seconds)\n    return "ok"\n`;
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': source }));
    await waitForBuild(service, 'local/buffered', deployed.body.version.id);
    expect((await call('POST', '/v2/functions/local/buffered/versions/latest/edit', { buffer_replicas: 2 })).body.buffer_replicas).toBe(2);
    const job = (await call('POST', '/v2/push', { function: 'local/buffered', inputs: { seconds: 8 } })).body.id as string;
    await until(async () => {
      const counts = await workers('buffered');
      return counts.active === 1 && counts.idle === 2;
    }, 15_000);
    expect((await call('GET', `/v2/jobs/${job}/await`)).body.status).toBe('finished');
    // Idle past the window (1 s here) with no job: the buffer goes too.
    await until(async () => {
      const counts = await workers('buffered');
      return counts.idle + counts.active + counts.starting + counts.setup === 0;
    }, 15_000);
  }, 60_000);

  it('refuses replica bounds that cannot hold with Sieve’s 400 "Invalid values passed.", and another organization’s edit with 403', async () => {
    const deployed = await deployDirectory(
      service,
      await writeFunctionDir({ 'main.py': `import sluice\n\n@sluice.function(name="bounded")\ndef bounded() -> str:\n    return "ok"\n` }),
    );
    await waitForBuild(service, 'local/bounded', deployed.body.version.id);
    for (const edit of [
      { minimum_replicas: 3, maximum_replicas: 2 },
      { minimum_replicas: -1 },
      { maximum_replicas: 65 },
      { scaledown_window: -1 },
      { scaledown_window: 86_401 },
      { buffer_replicas: 65 },
    ]) {
      const { status, body } = await call('POST', '/v2/functions/local/bounded/versions/latest/edit', edit);
      expect(status).toBe(400);
      expect(body.detail).toMatch(/^Invalid values passed\. /);
    }
    expect((await call('POST', '/v2/functions/local/bounded/versions/latest/edit', { minimum_replicas: 'two' })).status).toBe(422);
    expect(await call('POST', '/v2/functions/local/bounded/versions/no-such-version/edit', {})).toEqual({
      status: 404,
      body: { detail: 'Function version not found.' },
    });
    await call('POST', '/v2/functions/local/bounded/edit', { visibility: 'public' });
    const other = await service.createOrganization('acme');
    expect((await api(service.url, other, 'POST', '/v2/functions/local/bounded/versions/latest/edit', { minimum_replicas: 1 })).status).toBe(403);
    expect((await call('GET', '/v2/functions/local/bounded/versions/latest')).body.minimum_replicas).toBe(0);
  });

  it('runs a GPU function on a machine without GPUs by emulating its machine type', async () => {
    expect((await call('GET', '/v2/services/compute')).body).toMatchObject({
      cpu: { available: true, gpu: false, emulated: false },
      a100: { available: true, gpu: true, emulated: true, gpus: null },
    });
    const source = `import os, sluice\n\n@sluice.function(name="gpu-fn", gpu=sluice.gpu.A100(split=4))\ndef gpu_fn() -> str:\n    return os.environ.get("CUDA_VISIBLE_DEVICES", "unset")\n`;
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': source }));
    await waitForBuild(service, 'local/gpu-fn', deployed.body.version.id);
    const { body } = await call('POST', '/v2/push', { function: 'local/gpu-fn', inputs: {} });
    expect((await call('GET', `/v2/jobs/${body.id}/await`)).body.outputs[0].data).toBe('');
  });

  it('runs jobs pushed while the version builds once it is ready', async () => {
    const source = `import sluice\n\n@sluice.function(name="later", python_packages=[])\ndef later() -> str:\n    return "built"\n`;
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': source }));
    const { body } = await call('POST', '/v2/push', { function: 'local/later', inputs: {} });
    const job = (await call('GET', `/v2/jobs/${body.id}/await`)).body;
    expect(job).toMatchObject({ status: 'finished', outputs: [expect.objectContaining({ data: 'built' })] });
    expect(body.model_id).toBe(deployed.body.version.id);
  });

  it('ends jobs waiting for a build that fails in error with the build’s reason, and refuses new pushes with 400', async () => {
    const source = `import sluice\n\n@sluice.function(name="never", python_version="3.99")\ndef never() -> str:\n    return "no"\n`;
    await deployDirectory(service, await writeFunctionDir({ 'main.py': source }));
    const { body } = await call('POST', '/v2/push', { function: 'local/never', inputs: {} });
    const job = (await call('GET', `/v2/jobs/${body.id}/await`)).body;
    expect(job.status).toBe('error');
    expect(job.error).toMatch(/build failed: Python 3\.99 is not installed/);
    const refused = await call('POST', '/v2/push', { function: 'local/never', inputs: {} });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/no version that can run/);
  });

  it('stores a replica’s setup output before its first job’s result is answered: the version’s logs show it right after', async () => {
    const source = `import sluice\n\n@sluice.function(name="primed")\nclass Primed:\n    def __setup__(self):\n        print("primed the model")\n\n    def __predict__(self) -> str:\n        return "ok"\n`;
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': source }));
    await waitForBuild(service, 'local/primed', deployed.body.version.id);
    const { body } = await call('POST', '/v2/push', { function: 'local/primed', inputs: {} });
    expect((await call('GET', `/v2/jobs/${body.id}/await`)).body.status).toBe('finished');
    const logs = (await call('GET', `/v2/logs?version_id=${deployed.body.version.id}`)).body;
    const lines = logs.data.flatMap((group: { logs: { message: string }[] }) => group.logs.map((log) => log.message));
    expect(lines).toContain('primed the model');
  });

  it('keeps a flood of printed lines without blocking the job, all of them readable in pages', async () => {
    const source = `import sluice\n\n@sluice.function(name="chatty")\ndef chatty(lines: int) -> int:\n    for i in range(lines):\n        print(f"line {i}")\n    return lines\n`;
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': source }));
    await waitForBuild(service, 'local/chatty', deployed.body.version.id);
    const { body } = await call('POST', '/v2/push', { function: 'local/chatty', inputs: { lines: 50_000 } });
    expect((await call('GET', `/v2/jobs/${body.id}/await`)).body.status).toBe('finished');
    let start = '0';
    let count = 0;
    let last = '';
    for (;;) {
      const page = (await call('GET', `/v2/logs?job_id=${body.id}&start_time=${start}`)).body;
      if (page.data.length === 0) break;
      for (const group of page.data) {
        count += group.logs.length;
        last = group.logs.at(-1).message;
      }
      start = String(BigInt(page.last_time_returned) + 1n);
    }
    expect(count).toBe(50_000);
    expect(last).toBe('line 49999');
  }, 60_000);
});

describe('a machine without the GPU a version needs', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ SLUICE_EMULATE_GPUS: 'false' });
  });
  afterAll(() => service.close());

  it('keeps the job queued and reports the replica awaiting resources', async () => {
    const source = `import sluice\n\n@sluice.function(name="needs-t4", gpu=sluice.gpu.T4())\ndef needs_t4() -> str:\n    return "ran"\n`;
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': source }));
    await waitForBuild(service, 'local/needs-t4', deployed.body.version.id);
    const { body } = await api(service.url, service.key, 'POST', '/v2/push', { function: 'local/needs-t4', inputs: {} });
    await until(
      async () => (await api(service.url, service.key, 'GET', '/v2/functions/local/needs-t4/versions/latest')).body.current_workers.awaiting_resources === 1,
    );
    expect((await api(service.url, service.key, 'GET', `/v2/jobs/${body.id}`)).body.status).toBe('queued');
  });
});
