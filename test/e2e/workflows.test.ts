import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, startTestService, waitForBuild, writeFunctionDir } from './support/testService.js';

const CHILD = `import sluice

@sluice.function(name="double")
def double(n: int) -> int:
    return n * 2
`;

const PARENT = `import sluice

@sluice.function(name="pipeline")
def pipeline(n: int) -> dict:
    doubled = sluice.function.get("local/double").run(n=n)
    queued = sluice.function.get("local/double").push(n=100)
    return {"doubled": doubled, "pushed": queued.job_id}
`;

const COUNT = `import time
import sluice

@sluice.function(name="count")
def count(n: int):
    for i in range(n):
        time.sleep(0.2)
        yield i
`;

// Sieve's habit: the functions it calls named once, at the module's top level.
const FAN_OUT = `import sluice

double = sluice.function.get("local/double")
count = sluice.function.get("local/count")

@sluice.function(name="fan-out")
def fan_out(n: int, stranger: str = "") -> dict:
    if stranger:  # code that asks the agent for a job it did not push, as hostile code could
        from sluice import _remote
        try:
            return _remote._remote_caller.__self__.watch_job("local/double", stranger, 0, "end")
        except sluice.RemoteError as error:
            return {"refused": error.error}
    jobs = [double.push(n + i) for i in range(3)]
    counting = count.push(3)
    streamed = list(counting.outputs)
    return {"results": [job.result() for job in jobs], "statuses": [job.status for job in jobs], "streamed": streamed}
`;

const FILES = `import sluice

@sluice.function(name="shout-file")
def shout_file(document: sluice.File) -> sluice.File:
    with open(document.path) as f:
        text = f.read()
    with open("/tmp/sluice-shouted.txt", "w") as out:
        out.write(text.upper())
    return sluice.File(path="/tmp/sluice-shouted.txt")
`;

const FAN = `import sluice

@sluice.function(name="fan")
def fan(count: int) -> int:
    for n in range(count):
        sluice.function.get("local/double").push(n=n)
    return count
`;

const RELAY = `import sluice

@sluice.function(name="relay")
def relay(url: str, pushed: bool = False) -> str:
    shout = sluice.function.get("local/shout-file")
    shouted = shout.push(document=url).result() if pushed else shout.run(document=url)
    if not isinstance(shouted, sluice.File):
        raise TypeError(f"the child's File came back as {type(shouted).__name__}")
    return shouted.url
`;

describe('functions calling functions, and files', () => {
  let service: TestService;
  const call = (method: string, path: string, body?: unknown) => api(service.url, service.key, method, path, body);
  const run = async (fn: string, inputs: Record<string, unknown>) => {
    const { body } = await call('POST', '/v2/push', { function: `local/${fn}`, inputs });
    return (await call('GET', `/v2/jobs/${body.id}/await`)).body;
  };

  beforeAll(async () => {
    // The file server of the File test listens on loopback, which input URLs may reach only when allowed.
    service = await startTestService({ SLUICE_DEFAULT_MAX_REPLICAS: '2', SLUICE_INPUT_ALLOW: 'loopback' });
    for (const source of [CHILD, PARENT, COUNT, FAN_OUT, FILES, FAN, RELAY]) {
      const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': source }));
      await waitForBuild(service, `local/${deployed.body.function.name}`, deployed.body.version.id);
    }
  }, 120_000);
  afterAll(() => service.close());

  it('marks a function that calls others as a workflow listing its dependencies', async () => {
    const fn = (await call('GET', '/v2/functions/local/pipeline')).body;
    expect(fn.function_type).toBe('workflow');
    expect(fn.latest_version.function_dependencies).toEqual(['local/double']);
  });

  it('runs a child function from inside a job; the child records its parent and the parent lists its children', async () => {
    const parent = await run('pipeline', { n: 21 });
    expect(parent.status).toBe('finished');
    expect(parent.outputs[0].data.doubled).toBe(42);
    // Keyed by the function called, each value an array of its jobs (Sieve's shape).
    expect(Object.keys(parent.children)).toEqual(['local/double']);
    const childIds = parent.children['local/double'].map((child: any) => child.id);
    expect(childIds).toHaveLength(2);
    const pushed = (await call('GET', `/v2/jobs/${parent.outputs[0].data.pushed}/await`)).body;
    expect(pushed.outputs[0].data).toBe(200);
    expect(childIds).toContain(pushed.id);
  });

  it('awaits the jobs it pushed: several in flight, each result, and a streaming child\'s outputs', async () => {
    const fn = (await call('GET', '/v2/functions/local/fan-out')).body;
    expect(fn.latest_version.function_dependencies).toEqual(['local/double', 'local/count']);
    const parent = await run('fan-out', { n: 5 });
    expect(parent.error).toBe('');
    expect(parent.outputs[0].data).toEqual({ results: [10, 12, 14], statuses: ['finished', 'finished', 'finished'], streamed: [0, 1, 2] });
    expect(parent.children['local/double']).toHaveLength(3);
  });

  it('answers a job\'s await only for the jobs it pushed itself', async () => {
    const other = await run('double', { n: 1 });
    const parent = await run('fan-out', { n: 0, stranger: other.id });
    expect(parent.outputs[0].data).toEqual({ refused: `Job ${other.id} was not pushed by this job.` });
  });

  it('prices a job with the jobs it pushed (aggregated, the default), or alone', async () => {
    const parent = await run('pipeline', { n: 1 });
    const children = parent.children['local/double'];
    for (const child of children) await call('GET', `/v2/jobs/${child.id}/await`);
    const alone = (await call('GET', `/v2/usage/job/${parent.id}?aggregated=false`)).body;
    const together = (await call('GET', `/v2/usage/job/${parent.id}`)).body;
    const childCosts = await Promise.all(children.map(async (child: any) => (await call('GET', `/v2/usage/job/${child.id}`)).body.cost));
    expect(alone).toMatchObject({ job_id: parent.id, function_name: 'pipeline', function_owner_name: 'local', function_id: parent.function_id, aggregated: false });
    expect(childCosts.every((cost: number) => cost > 0)).toBe(true);
    expect(together.cost).toBeCloseTo(alone.cost + childCosts.reduce((sum: number, cost: number) => sum + cost, 0), 12);
  });

  it('lists a job’s first 100 children on a list page, saying there are more (children_truncated), and all of them on GET of the job', async () => {
    const fan = await run('fan', { count: 130 });
    expect(fan.status).toBe('finished');
    expect(fan.children['local/double']).toHaveLength(130);
    expect(fan.children_truncated).toBeUndefined();
    const listed = (await call('GET', '/v2/functions/local/fan/jobs?limit=1')).body.data[0];
    expect(listed.id).toBe(fan.id);
    // The first 100, oldest first (their statuses move on as they run).
    const idsOf = (children: { id: string }[]) => children.map((child) => child.id);
    expect(idsOf(listed.children['local/double'])).toEqual(idsOf(fan.children['local/double']).slice(0, 100));
    expect(listed.children_truncated).toBe(true);
    const small = (await call('GET', '/v2/functions/local/pipeline/jobs?limit=1')).body.data[0];
    expect(small.children['local/double']).toHaveLength(2);
    expect(small.children_truncated).toBeUndefined();
  }, 60_000);

  it('hands a calling function a child’s File output as a File with its signed URL, from run() and from push().result(), which downloads without a key', async () => {
    const server = createServer((_request, response) => response.end('handed on'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      for (const pushed of [false, true]) {
        const relay = await run('relay', { url: `http://127.0.0.1:${port}/doc.txt`, pushed });
        expect(relay.status).toBe('finished');
        const handed: string = relay.outputs[0].data;
        expect(new URL(handed).searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
        const download = await fetch(handed);
        expect(download.status).toBe(200);
        expect(await download.text()).toBe('HANDED ON');
      }
    } finally {
      server.close();
    }
  });

  it('hands a File input given by URL to the function as a local path, and serves a File output by URL', async () => {
    const server = createServer((_request, response) => response.end('quiet words'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const job = await run('shout-file', { document: { url: `http://127.0.0.1:${port}/doc.txt` } });
      expect(job.status).toBe('finished');
      expect(job.outputs[0].type).toBe('sieve.File');
      // The URL a job shows is signed: no key needed. The route it stands for still needs one.
      const download = await fetch(job.outputs[0].data.url);
      expect(download.status).toBe(200);
      expect(await download.text()).toBe('QUIET WORDS');
      expect((await fetch(`${service.url}/v2/jobs/${job.id}/files/0`)).status).toBe(401);
    } finally {
      server.close();
    }
  });
});
