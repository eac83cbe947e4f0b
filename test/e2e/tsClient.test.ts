import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SluiceClient, SluiceError } from '../../clients/typescript/src/index.js';
import type { TestService } from './support/testService.js';
import { deployDirectory, startTestService, waitForBuild, writeFunctionDir } from './support/testService.js';

const STREAM_WORDS = fileURLToPath(new URL('../../examples/stream-words', import.meta.url));

/** Files in and out, and a job slow enough to cancel or to follow its log. */
const HELPERS = {
  shout: `import sluice

@sluice.function(name="shout-file")
def shout_file(document: sluice.File) -> sluice.File:
    with open(document.path) as source, open("/tmp/shouted.txt", "w") as target:
        target.write(source.read().upper())
    return sluice.File("/tmp/shouted.txt")
`,
  slow: `import time
import sluice

@sluice.function(name="slow")
def slow(seconds: float) -> str:
    print("starting", flush=True)
    time.sleep(seconds)
    print("done", flush=True)
    return "slept"
`,
};

const collect = async <T>(items: AsyncIterable<T>) => {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
};

describe('the TypeScript client (clients/typescript) against the real service', () => {
  let service: TestService;
  let client: SluiceClient;
  let wordsVersion = '';

  beforeAll(async () => {
    service = await startTestService();
    client = new SluiceClient({ url: service.url, apiKey: service.key });
    const directories = [STREAM_WORDS, await writeFunctionDir({ 'main.py': HELPERS.shout }), await writeFunctionDir({ 'main.py': HELPERS.slow })];
    const names = ['local/stream-words', 'local/shout-file', 'local/slow'];
    for (const [index, directory] of directories.entries()) {
      const deployed = await deployDirectory(service, directory);
      expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
      const version = await waitForBuild(service, names[index] as string, deployed.body.version.id);
      expect(version.build_status).toBe('ready');
      if (index === 0) wordsVersion = version.id;
    }
  }, 300_000);
  afterAll(() => service?.close());

  it('runs a function: the finished job, every streamed output in order', async () => {
    const job = await client.run('local/stream-words', { text: 'the quick fox' });
    expect(job.status).toBe('finished');
    expect(job.outputs?.map((output) => (Array.isArray(output) ? null : output.data))).toEqual(['the', 'quick', 'fox']);
  });

  it('pushes and awaits separately, and lists jobs page by page, by function and by status', async () => {
    const pushed = await Promise.all(['a', 'b c', 'd e f'].map((text) => client.push('local/stream-words', { text })));
    for (const { id } of pushed) expect((await client.await(id)).status).toBe('finished');
    const firstPage = await client.jobs({ function: 'local/stream-words', limit: 2 });
    expect(firstPage.data).toHaveLength(2);
    expect(firstPage.next_offset).toBe(2);
    const all = await collect(client.allJobs({ function: 'local/stream-words', status: 'finished', pageSize: 2 }));
    expect(all.map((job) => job.id)).toEqual(expect.arrayContaining(pushed.map((job) => job.id)));
    expect(all.every((job) => job.function.name === 'stream-words' && job.status === 'finished')).toBe(true);
    expect((await client.jobs({ status: 'cancelled' })).data).toEqual([]);
  });

  it('streams a job as it runs: its status, each output as it comes, then the finished job', async () => {
    const { id } = await client.push('local/stream-words', { text: 'one two three' });
    const events = await collect(client.events(id));
    expect(events.filter((event) => event.type === 'output').map((event) => event.type === 'output' && event.output.data)).toEqual(['one', 'two', 'three']);
    expect(events.filter((event) => event.type === 'status').map((event) => event.type === 'status' && event.status)).toContain('finished');
    const last = events.at(-1);
    expect(last?.type === 'done' && last.job.status).toBe('finished');
    expect((await collect(client.outputs(id))).map((output) => output.data)).toEqual(['one', 'two', 'three']);
  });

  it('follows a job’s log as it is written, until told to stop', async () => {
    const { id } = await client.push('local/slow', { seconds: 1 });
    const stop = new AbortController();
    const lines: string[] = [];
    for await (const line of client.followLogs({ jobId: id }, { signal: stop.signal })) {
      lines.push(line.message);
      if (line.message === 'done') stop.abort();
    }
    expect(lines).toEqual(['starting', 'done']);
  });

  it('lists functions and versions, and reports usage and a job’s cost', async () => {
    expect((await client.functions()).map((fn) => fn.name).sort()).toEqual(['shout-file', 'slow', 'stream-words']);
    expect((await client.function('local/stream-words')).latest_version.id).toBe(wordsVersion);
    expect((await client.versions('local/stream-words')).map((version) => version.id)).toEqual([wordsVersion]);
    const job = await client.run('local/stream-words', { text: 'cost' });
    const usage = await client.usage({ function: 'local/stream-words' });
    expect(usage.cpu.compute_seconds).toBeGreaterThan(0);
    expect(usage.total_cost_dollars).toBe(usage.cpu.cost_dollars);
    expect(Object.keys(await client.usageByFunction())).toContain('local/stream-words');
    expect((await client.jobCost(job.id)).job_id).toBe(job.id);
  });

  it('cancels a running job, and reads what it printed before', async () => {
    const { id } = await client.push('local/slow', { seconds: 60 });
    for (let job = await client.job(id); job.status !== 'processing'; job = await client.job(id)) await new Promise((resolve) => setTimeout(resolve, 100));
    for (
      let lines = await collect(client.logs({ jobId: id }));
      !lines.some((line) => line.message.includes('starting'));
      lines = await collect(client.logs({ jobId: id }))
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await client.cancel(id)).message).toBe(`Job ${id} cancelled.`);
    expect((await client.await(id)).status).toBe('cancelled');
    const lines = await collect(client.logs({ jobId: id }));
    expect(lines.map((line) => line.message)).toEqual(['starting']);
    expect(lines[0]).toMatchObject({ job_id: id, stage: 'run', timestamp: expect.stringMatching(/^\d{19}$/) });
  });

  it('reads a version’s build log page by page', async () => {
    const lines = await collect(client.logs({ versionId: wordsVersion }));
    expect(lines.length).toBeGreaterThan(0);
    expect(new Set(lines.map((line) => line.timestamp)).size).toBe(lines.length);
  });

  it('uploads a Blob as a file input and downloads the file output', async () => {
    const input = await client.upload(new Blob(['make me loud']), 'quiet.txt');
    expect(input).toMatchObject({ name: 'quiet.txt' });
    const job = await client.run('local/shout-file', { document: input });
    expect(job.status, job.error ?? '').toBe('finished');
    const output = job.outputs?.[0];
    if (!output || Array.isArray(output)) throw new Error('no file output');
    expect(await (await client.download(output)).text()).toBe('MAKE ME LOUD');
  });

  it('throws SluiceError with the status and the service’s detail', async () => {
    await expect(client.job('no-such-job')).rejects.toMatchObject({ name: 'SluiceError', status: 404, detail: 'Job not found.' });
    const invalid = await client.push('local/stream-words', { txet: 'typo' }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(SluiceError);
    expect((invalid as SluiceError).status).toBe(422);
    expect((invalid as SluiceError).detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc: ['body', 'inputs', 'txet'] })]));
    await expect(new SluiceClient({ url: service.url, apiKey: 'wrong' }).functions()).rejects.toMatchObject({ status: 401 });
  });
});
