import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, startTestService, until, waitForBuild, writeFunctionDir } from './support/testService.js';
import { openEventStream } from './support/eventStream.js';

/** Prints a line and yields a word per step, waiting `pause` seconds between steps. */
const TALKER = `import sluice, time
from typing import Iterator

@sluice.function(name="talker")
def talker(text: str, pause: float = 0.0) -> Iterator[str]:
    for word in text.split():
        print(f"saying {word}", flush=True)
        yield word
        time.sleep(pause)
`;

describe('Server-Sent Events: a job and its logs as they happen, over real HTTP', () => {
  let service: TestService;
  let otherKey: string;
  let versionId: string;
  const push = async (inputs: Record<string, unknown>) =>
    (await api(service.url, service.key, 'POST', '/v2/push', { function: 'local/talker', inputs })).body.id as string;
  const jobEvents = (id: string, key = service.key, lastEventId?: string) => openEventStream(`${service.url}/v2/jobs/${id}/events`, key, lastEventId);
  const listeners = () => service.running.app.jobEvents.listenerCount() + service.running.app.logFeed.listenerCount();

  beforeAll(async () => {
    service = await startTestService();
    otherKey = await service.createOrganization('rival');
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': TALKER }));
    versionId = deployed.body.version.id;
    expect((await waitForBuild(service, 'local/talker', versionId)).build_status).toBe('ready');
  }, 180_000);
  afterAll(() => service.close());

  it('streams a running job: statuses, each log line and output as it comes, then done with the job as GET prints it', async () => {
    const id = await push({ text: 'one two three', pause: 0.3 });
    const stream = await jobEvents(id);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    const first = await stream.next();
    expect(first?.event).toBe('status');
    // The second word has not been said yet when the first output arrives: it is streamed, not collected.
    const events = [first!, ...(await stream.rest())];
    const firstOutput = events.findIndex((event) => event.event === 'output');
    expect(events.slice(0, firstOutput).some((event) => event.event === 'log' && event.data.message.includes('two'))).toBe(false);
    expect(events.filter((event) => event.event === 'status').map((event) => event.data.status)).toEqual(expect.arrayContaining(['processing', 'finished']));
    expect(events.filter((event) => event.event === 'output').map((event) => event.data.data)).toEqual(['one', 'two', 'three']);
    const lines = events.filter((event) => event.event === 'log');
    expect(lines.map((event) => event.data.message)).toEqual(['saying one', 'saying two', 'saying three']);
    expect(lines[0]!.data.timestamp).toMatch(/^\d{19}$/);
    const done = events.at(-1)!;
    expect(done.event).toBe('done');
    expect(done.data).toEqual((await api(service.url, service.key, 'GET', `/v2/jobs/${id}`)).body);
    // Each event moves the cursor its id is (done closes the stream where the last status left it).
    expect(new Set(events.slice(0, -1).map((event) => event.id)).size).toBe(events.length - 1);
  }, 60_000);

  it('answers a finished job at once: its history, then done, then the end', async () => {
    const id = await push({ text: 'alpha beta' });
    await api(service.url, service.key, 'GET', `/v2/jobs/${id}/await`);
    const events = await (await jobEvents(id)).rest();
    expect(events.map((event) => event.event)).toEqual(['log', 'log', 'output', 'output', 'status', 'done']);
    expect(events.at(-2)!.data).toEqual({ job_id: id, status: 'finished' });
  }, 30_000);

  it('resumes after Last-Event-ID without repeating an event', async () => {
    const id = await push({ text: 'a b c d' });
    await api(service.url, service.key, 'GET', `/v2/jobs/${id}/await`);
    const all = await (await jobEvents(id)).rest();
    const resumed = await (await jobEvents(id, service.key, all[2]!.id)).rest();
    expect(resumed).toEqual(all.slice(3));
  }, 30_000);

  it("lets go of every listener when the client leaves, and answers another organization's job 404", async () => {
    const before = listeners();
    const id = await push({ text: 'slow', pause: 2 });
    const stream = await jobEvents(id);
    await stream.next();
    await until(async () => listeners() === before + 2); // the job's events and the log feed
    stream.close();
    await until(async () => listeners() === before);
    const rival = await jobEvents(id, otherKey);
    expect(rival.status).toBe(404);
    expect(await rival.json()).toEqual({ detail: 'Job not found.' });
    expect((await openEventStream(`${service.url}/v2/jobs/${id}/events`, undefined)).status).toBe(401);
    await api(service.url, service.key, 'GET', `/v2/jobs/${id}/await`);
  }, 30_000);

  it('refuses a Last-Event-ID it never sent with a clear 400, an output count no job has included', async () => {
    const stream = await jobEvents('any', service.key, 'garbage');
    expect(stream.status).toBe(400);
    expect((await stream.json()).detail).toMatch(/Last-Event-ID "garbage"/);
    const id = await push({ text: 'a' });
    const huge = await jobEvents(id, service.key, 'none.99999999999999999999999.0');
    expect(huge.status).toBe(400);
    expect((await huge.json()).detail).toMatch(/Last-Event-ID "none\.9+\.0"/);
    await api(service.url, service.key, 'GET', `/v2/jobs/${id}/await`);
  });

  it("follows a job's log lines as they are written and never ends by itself; a version's build log too", async () => {
    const id = await push({ text: 'x y', pause: 0.5 });
    const stream = await openEventStream(`${service.url}/v2/logs/events?job_id=${id}`, service.key);
    const first = await stream.next();
    const second = await stream.next();
    expect([first?.data.message, second?.data.message]).toEqual(['saying x', 'saying y']);
    expect(first?.data).toMatchObject({ job_id: id, stage: 'run', organization_id: expect.any(String), function_id: expect.any(String) });
    await api(service.url, service.key, 'GET', `/v2/jobs/${id}/await`);
    // Still open after the job ended: nothing more, no end, and a keep-alive comment within 15 s.
    const more = stream.next();
    await until(async () => stream.comments.includes(': keep-alive'), 20_000, 200);
    stream.close();
    expect(await more).toBeNull();
    const build = await openEventStream(`${service.url}/v2/logs/events?version_id=${versionId}`, service.key);
    expect((await build.next())?.data.stage).toBe('build');
    build.close();
    expect((await openEventStream(`${service.url}/v2/logs/events?version_id=${versionId}`, otherKey)).status).toBe(404);
  }, 45_000);

  it('reads no further ahead than a client that does not read: a long history is not buffered whole in the service', async () => {
    const key = await service.createOrganization('slow-reader');
    const organizationId = (await api(service.url, key, 'GET', '/v2/organization')).body.id as string;
    const lines = 40_000; // 40 pages of about 1 KB lines: 40 MB of events
    const entry = { stream: 'version:history', organizationId, functionId: 'f', jobId: '', runId: '', stage: 'build' as const };
    await service.running.app.store.logs.append(
      Array.from({ length: lines }, (_, index) => ({ ...entry, timeNs: BigInt(index + 1), message: `${index} ${'x'.repeat(1000)}` })),
    );
    const before = listeners();
    const reads = vi.spyOn(service.running.app.store.logs, 'query');
    const pagesRead = () => reads.mock.calls.filter(([query]) => query.organizationId === organizationId).length;
    const { hostname, port } = new URL(service.url);
    const socket = connect(Number(port), hostname);
    try {
      socket.pause(); // takes nothing off the wire: the service's writes back up
      socket.write(`GET /v2/logs/events HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`);
      await until(async () => pagesRead() > 0);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      // Kernel buffers take a few pages (4 here); without backpressure all 40 were read at once.
      expect(pagesRead()).toBeLessThan(20);
      // Once read, the whole history arrives, nothing lost.
      let text = '';
      socket.on('data', (chunk: Buffer) => void (text += chunk.toString('latin1')));
      socket.resume();
      await until(async () => text.includes(`id: ${lines}\n`), 30_000, 100);
      expect(text.match(/^event: log$/gm)).toHaveLength(lines);
    } finally {
      socket.destroy();
    }
    // A client that leaves while its stream waits for it to read lets go of its listener too.
    const stalled = connect(Number(port), hostname);
    stalled.pause();
    const pagesBefore = pagesRead();
    stalled.write(`GET /v2/logs/events HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`);
    await until(async () => pagesRead() > pagesBefore && listeners() === before + 1);
    stalled.destroy();
    reads.mockRestore();
    await until(async () => listeners() === before);
  }, 60_000);
});
