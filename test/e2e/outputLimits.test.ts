import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, startTestService, waitForBuild, writeFunctionDir } from './support/testService.js';

const MB = 1024 * 1024;

const FUNCTIONS = {
  huge: `import sluice

@sluice.function(name="huge")
def run(kilobytes: int) -> str:
    return "x" * (kilobytes * 1024)
`,
  // Writes its own output message on the protocol channel, past the SDK and its cap.
  sneaky: `import json, os
import sluice

@sluice.function(name="sneaky")
def run(megabytes: int) -> None:
    message = {"type": "output", "job_id": os.environ["SLUICE_JOB_ID"], "index": 0, "value": ["y" * (megabytes * 1024 * 1024)]}
    os.write(3, (json.dumps(message) + "\\n").encode())
`,
  small: `import sluice

@sluice.function(name="small")
def run() -> dict:
    return {"answer": 42}
`,
};

describe('output size limits (a function returning 50 MB, and another tenant meanwhile)', () => {
  let service: TestService;
  let otherKey: string;
  const call = (method: string, path: string, body?: unknown, key = service.key) => api(service.url, key, method, path, body);
  const run = async (fn: string, inputs: Record<string, unknown>, key = service.key) => {
    const { body: pushed } = await call('POST', '/v2/push', { function: fn, inputs }, key);
    return (await call('GET', `/v2/jobs/${pushed.id}/await`, undefined, key)).body;
  };
  const download = async (url: string) => Buffer.from(await (await fetch(url, { headers: { 'x-api-key': service.key } })).arrayBuffer());

  beforeAll(async () => {
    service = await startTestService({ SLUICE_MAX_OUTPUT_MB: '1', SLUICE_DEFAULT_MAX_REPLICAS: '2' });
    otherKey = await service.createOrganization('neighbour');
    for (const [name, source] of Object.entries(FUNCTIONS)) {
      const key = name === 'small' ? otherKey : service.key;
      const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': source }), key, name === 'small' ? 'neighbour' : 'local');
      await waitForBuild(service, `${name === 'small' ? 'neighbour' : 'local'}/${name}`, deployed.body.version.id, key);
    }
  }, 120_000);
  afterAll(() => service.close());

  it('returns a 50 MB result as a file output holding its JSON, byte for byte', async () => {
    const job = await run('local/huge', { kilobytes: 50 * 1024 });
    expect(job.status).toBe('finished');
    expect(job.outputs).toHaveLength(1);
    expect(job.outputs[0]).toMatchObject({
      type: 'sieve.File',
      data: { name: 'output-0.json', url: expect.stringMatching(new RegExp(`^${service.url}/files/${job.id}/0\\?expires=`)) },
    });
    const bytes = await download(job.outputs[0].data.url);
    expect(bytes.length).toBe(50 * MB + 2);
    expect(bytes.equals(Buffer.from(JSON.stringify('x'.repeat(50 * MB))))).toBe(true);
  }, 60_000);

  it('keeps a result within SLUICE_MAX_OUTPUT_MB inline', async () => {
    const job = await run('local/huge', { kilobytes: 512 });
    expect(job.outputs[0]).toMatchObject({ type: 'str' });
    expect(job.outputs[0].data).toHaveLength(MB / 2);
  });

  it('holds a replica that bypasses the SDK to the same cap: its oversized output becomes a file too', async () => {
    const job = await run('local/sneaky', { megabytes: 3 });
    expect(job.status).toBe('finished');
    expect(job.outputs[0]).toMatchObject({ type: 'sieve.File', data: { name: 'output-0.json' } });
    expect(JSON.parse((await download(job.outputs[0].data.url)).toString())).toEqual(['y'.repeat(3 * MB)]);
  }, 30_000);

  it('lists pages of 50 MB jobs quickly, and another organization’s requests are not held up meanwhile', async () => {
    for (let i = 0; i < 3; i++) expect((await run('local/huge', { kilobytes: 50 * 1024 })).status).toBe('finished');
    await run('neighbour/small', {}, otherKey);
    // The owner of the huge jobs pages through them and reads each, again and again...
    let listing = true;
    const listTimes: number[] = [];
    const owner = (async () => {
      while (listing) {
        const started = performance.now();
        const page = await call('GET', '/v2/jobs?limit=100');
        listTimes.push(performance.now() - started);
        expect(page.status).toBe(200);
        await Promise.all(page.body.data.map((job: any) => call('GET', `/v2/jobs/${job.id}`)));
      }
    })();
    // ...while the neighbour's reads keep their pace.
    const neighbourTimes: number[] = [];
    for (let i = 0; i < 40; i++) {
      const started = performance.now();
      expect((await call('GET', '/v2/jobs', undefined, otherKey)).status).toBe(200);
      neighbourTimes.push(performance.now() - started);
    }
    listing = false;
    await owner;
    // A few tens of milliseconds at most (before the cap, a page of these jobs held every request for over a second).
    expect(Math.max(...neighbourTimes)).toBeLessThan(80);
    expect(Math.max(...listTimes)).toBeLessThan(250);
  }, 120_000);
});
