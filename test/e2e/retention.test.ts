import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, deployDirectory, startTestService, waitForBuild, writeFunctionDir, type TestService } from './support/testService.js';

/** Prints `lines` log lines of 2 KB, sleeps, and returns a File: every kind of thing retention deletes. */
const RETAINED = `import os, tempfile, time
import sluice

@sluice.function(name="retained", maximum_replicas=2)
def retained(lines: int, seconds: float) -> sluice.File:
    for i in range(lines):
        print(str(i) * 2000 if i < 10 else "x" * 2000)
    time.sleep(seconds)
    path = os.path.join(tempfile.mkdtemp(), "out.txt")
    with open(path, "w") as f:
        f.write("kept until retention")
    return sluice.File(path)
`;

const RETENTION_S = 3;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('retention in the local mode (SLUICE_RETENTION_DAYS)', () => {
  let service: TestService;
  const call = (method: string, path: string, body?: unknown) => api(service.url, service.key, method, path, body);
  const push = async (lines: number, seconds: number): Promise<string> =>
    (await call('POST', '/v2/push', { function: 'local/retained', inputs: { lines, seconds } })).body.id;
  const awaitJob = async (id: string) => (await call('GET', `/v2/jobs/${id}/await`)).body;
  const databaseBytes = () =>
    ['sluice.db', 'sluice.db-wal'].reduce((sum, name) => sum + (existsSync(join(service.dataDir, name)) ? statSync(join(service.dataDir, name)).size : 0), 0);
  /** Waits until the job is gone (404), or fails after `ms`. */
  const goneWithin = async (id: string, ms: number) => {
    for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(100)) if ((await call('GET', `/v2/jobs/${id}`)).status === 404) return true;
    return false;
  };

  beforeAll(async () => {
    service = await startTestService({ SLUICE_RETENTION_DAYS: String(RETENTION_S / 86_400), SLUICE_RETENTION_SWEEP_S: '0.2' });
    const { body: deployed } = await deployDirectory(service, await writeFunctionDir({ 'main.py': RETAINED }));
    expect((await waitForBuild(service, 'local/retained', deployed.version.id)).build_status).toBe('ready');
  }, 120_000);
  afterAll(() => service.close());

  it('deletes an ended job past the retention with its outputs, logs and files, and keeps a running one', async () => {
    const running = await push(1, 4 * RETENTION_S);
    const ended = await push(5, 0);
    const job = await awaitJob(ended);
    expect(job.status).toBe('finished');
    const fileFolder = join(service.dataDir, 'files', ended);
    expect(existsSync(fileFolder)).toBe(true);
    expect((await call('GET', `/v2/logs?job_id=${ended}`)).body.data.length).toBeGreaterThan(0);

    expect(await goneWithin(ended, 5000 + RETENTION_S * 1000)).toBe(true);
    // The files go before the rows: once the job reads 404, they are gone.
    expect(existsSync(fileFolder)).toBe(false);
    expect((await call('GET', `/v2/logs?job_id=${ended}`)).status).toBe(404);
    expect((await call('GET', '/v2/jobs?limit=100')).body.data.map((listed: { id: string }) => listed.id)).not.toContain(ended);
    // Created before the ended one, and past the retention too, but still processing.
    expect((await call('GET', `/v2/jobs/${running}`)).body.status).toBe('processing');
    expect((await awaitJob(running)).status).toBe('finished');
  }, 60_000);

  it('keeps the usage of deleted jobs: the hour totals are the bill', async () => {
    const computeSeconds = async (): Promise<number> => (await call('GET', '/v2/usage')).body.total_compute_seconds;
    const before = await computeSeconds();
    const id = await push(1, 1);
    expect((await awaitJob(id)).status).toBe('finished');
    expect(await goneWithin(id, 5000 + RETENTION_S * 1000)).toBe(true);
    expect(await computeSeconds()).toBeGreaterThanOrEqual(before + 1);
  }, 60_000);

  it('reuses the space of deleted jobs: the same work again leaves the database no larger', async () => {
    const round = async () => {
      const ids = [];
      for (let i = 0; i < 12; i++) ids.push(await push(200, 0));
      for (const id of ids) expect((await awaitJob(id)).status).toBe('finished');
      for (const id of ids) expect(await goneWithin(id, 5000 + RETENTION_S * 1000)).toBe(true);
    };
    const before = databaseBytes();
    await round();
    const afterFirst = databaseBytes();
    await round();
    const afterSecond = databaseBytes();
    // Each round writes about 5 MB of log lines; the second lands in the pages the first freed.
    expect(afterFirst - before).toBeGreaterThan(2_000_000);
    expect(afterSecond - afterFirst).toBeLessThan((afterFirst - before) / 4);
  }, 120_000);
});
