import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { realpath, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, startTestService, until, writeFunctionDir } from './support/testService.js';

// Code as Sieve's users write it: what Sieve's SDK brings imported, never declared.
const USES_DEFAULTS = `import requests, pydantic, PIL, yaml, tqdm, typer
import sluice

class Greeting(pydantic.BaseModel):
    name: str

@sluice.function(name="uses-defaults")
def uses_defaults(name: str) -> dict:
    return {"requests": requests.__version__, "pydantic": pydantic.VERSION, "greeting": Greeting(name=name).name,
            "others": [module.__name__ for module in (PIL, yaml, tqdm, typer)]}
`;

const onPython = (minor: number) => `import sys
import sluice

@sluice.function(name="on-3${minor}", python_version="3.${minor}")
def on_python() -> str:
    return sys.version
`;

// Whether this machine has Python 3.X where a builder should find it: on PATH (not a shim that fails), in pyenv, in /usr/bin or /usr/local/bin.
const pyenvVersions = join(process.env.PYENV_ROOT ?? join(homedir(), '.pyenv'), 'versions');
const hasPython = (minor: number) =>
  [
    ...[...(process.env.PATH ?? '').split(':'), '/usr/bin', '/usr/local/bin'].map((folder) => join(folder, `python3.${minor}`)),
    ...(existsSync(pyenvVersions)
      ? readdirSync(pyenvVersions)
          .filter((entry) => entry.startsWith(`3.${minor}.`))
          .map((entry) => join(pyenvVersions, entry, 'bin', `python3.${minor}`))
      : []),
  ].some((python) => existsSync(python) && spawnSync(python, ['-c', `import sys; assert sys.version_info[:2] == (3, ${minor})`]).status === 0);
const has38 = hasPython(8);
const has312 = hasPython(12);

describe('the environment a version is built in', () => {
  let service: TestService;
  const versions: Record<string, string> = {};

  const buildLog = async (name: string) => {
    const logs = (await api(service.url, service.key, 'GET', `/v2/logs?version_id=${versions[name]}`)).body;
    return logs.data.flatMap((group: any) => group.logs.map((log: any) => log.message)) as string[];
  };
  const status = async (name: string) => (await api(service.url, service.key, 'GET', `/v2/functions/local/${name}/versions/${versions[name]}`)).body;
  const expectReady = async (name: string) => expect((await status(name)).build_status, (await buildLog(name)).join('\n')).toBe('ready');
  const runJob = async (name: string, inputs: Record<string, unknown>) => {
    const pushed = await api(service.url, service.key, 'POST', '/v2/push', { function: `local/${name}`, inputs });
    return (await api(service.url, service.key, 'GET', `/v2/jobs/${pushed.body.id}/await`)).body;
  };

  beforeAll(async () => {
    service = await startTestService();
    const sources = { 'uses-defaults': USES_DEFAULTS, ...(has38 ? { 'on-38': onPython(8) } : {}), ...(has312 ? { 'on-312': onPython(12) } : {}) };
    for (const [name, source] of Object.entries(sources)) {
      const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': source }));
      expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
      versions[name] = deployed.body.version.id;
    }
    // Both build at once; pip fetching the defaults takes minutes where the index is slow.
    await until(
      async () => (await Promise.all(Object.keys(versions).map(status))).every((version) => ['ready', 'error'].includes(version.build_status)),
      280_000,
      500,
    );
  }, 300_000);
  afterAll(async () => {
    // An environment lacking a default is never reused: it leaves the shared folder with its service.
    for (const id of Object.values(versions)) {
      const environment = await realpath(join(service.dataDir, 'versions', id, 'venv')).catch(() => '');
      if (environment.includes('.without-')) await rm(environment, { recursive: true, force: true });
    }
    await service?.close();
  });

  it('holds requests, pydantic, pillow, pyyaml, tqdm and typer without the version declaring them: code that imports them builds and runs', async () => {
    await expectReady('uses-defaults');
    const job = await runJob('uses-defaults', { name: 'Ada' });
    expect(job.status, job.error).toBe('finished');
    expect(job.outputs[0].data).toEqual({
      requests: expect.stringMatching(/^2\./),
      pydantic: expect.stringMatching(/^\d+\./),
      greeting: 'Ada',
      others: ['PIL', 'yaml', 'tqdm', 'typer'],
    });
    expect((await buildLog('uses-defaults')).join('\n')).toMatch(
      /Added the default packages: requests pydantic pillow pyyaml tqdm typer|Reusing the environment \w+ \(Python [\d.]+, requests pydantic pillow pyyaml tqdm typer\)/,
    );
  });

  // Where the machine has no such Python, test/integration/pythonInterpreters.test.ts specifies the failure.
  for (const [minor, present] of [
    [8, has38],
    [12, has312],
  ] as const) {
    it.skipIf(!present)(`builds python_version "3.${minor}" where the machine has it, even off PATH (pyenv’s), and runs it there`, async () => {
      await expectReady(`on-3${minor}`);
      expect(await buildLog(`on-3${minor}`)).toContainEqual(expect.stringMatching(new RegExp(`^Using Python 3\\.${minor} at /`)));
      const job = await runJob(`on-3${minor}`, {});
      expect(job.status, job.error).toBe('finished');
      expect(job.outputs[0].data).toMatch(new RegExp(`^3\\.${minor}\\.\\d+ `));
    });
  }
});
