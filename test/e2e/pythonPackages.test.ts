import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, startTestService, until, writeFunctionDir } from './support/testService.js';

const SOURCE = `import os, subprocess, sys
import sluice

@sluice.function(name="packaged", python_packages=["six"])
def packaged() -> dict:
    import six
    pip = subprocess.run([os.path.join(sys.prefix, "bin", "pip"), "--version"], capture_output=True, text=True)
    return {"six": six.__version__, "pip_exit": pip.returncode, "pip": pip.stdout + pip.stderr}
`;

describe('python_packages', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': SOURCE }));
    // pip downloads and installs: longer than waitForBuild's few seconds on a busy machine.
    const versionPath = `/v2/functions/local/packaged/versions/${deployed.body.version.id}`;
    await until(async () => ['ready', 'error'].includes((await api(service.url, service.key, 'GET', versionPath)).body.build_status), 180_000, 250);
    expect((await api(service.url, service.key, 'GET', versionPath)).body.build_status).toBe('ready');
  }, 200_000);
  afterAll(() => service?.close());

  it('installs them through pip’s own configuration, and the console scripts they bring run', async () => {
    const pushed = await api(service.url, service.key, 'POST', '/v2/push', { function: 'local/packaged', inputs: {} });
    const job = (await api(service.url, service.key, 'GET', `/v2/jobs/${pushed.body.id}/await`)).body;
    expect(job.status, job.error).toBe('finished');
    const result = job.outputs[0].data;
    expect(result.six).toMatch(/^\d+\.\d+/);
    expect(result.pip_exit, result.pip).toBe(0);
  });
});
