import { Writable } from 'node:stream';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../shared/app/localService.js';
import { startLocalService } from '../../shared/app/localService.js';
import { loadConfig } from '../../shared/config.js';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, until, waitForBuild, writeFunctionDir } from './support/testService.js';

const SLOW = `import sluice, time

@sluice.function(name="slow")
def slow(seconds: float) -> str:
    time.sleep(seconds)
    return "done"
`;

/** The service's log lines, as JSON objects. */
function capturingLogger() {
  const lines: Record<string, any>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'debug', base: { service: 'sluice' } }, stream), lines };
}

/** The real service on a free port over `dataDir`, as `sluice start` runs it, with its log captured. */
async function startOn(dataDir: string, env: Record<string, string> = {}) {
  const config = loadConfig({ ...process.env, SLUICE_DATA_DIR: dataDir, PORT: '0', ...env });
  const { logger, lines } = capturingLogger();
  const running = await startLocalService(config, logger);
  const service = { url: running.url, key: running.bootstrapKey.key, dataDir, running } as TestService;
  return { running, service, lines };
}

describe('operating the service', () => {
  const dirs: string[] = [];
  const newDataDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sluice-ops-'));
    dirs.push(dir);
    return dir;
  };
  let running: RunningService;
  let service: TestService;
  let lines: Record<string, any>[];
  let versionId: string;

  beforeAll(async () => {
    ({ running, service, lines } = await startOn(await newDataDir(), { SLUICE_SHUTDOWN_GRACE_S: '0' }));
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': SLOW }));
    versionId = deployed.body.version.id;
    await waitForBuild(service, 'local/slow', versionId);
  }, 120_000);
  afterAll(async () => {
    await running?.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('answers /healthz without a key: live, and ready while its store answers', async () => {
    const response = await fetch(`${service.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', store: 'ok', disk: 'ok' });
  });

  it('logs one structured line per build state, replica start and job end (its start at debug), and a debug line per request', async () => {
    const pushed = await api(service.url, service.key, 'POST', '/v2/push', { function: 'local/slow', inputs: { seconds: 0 } });
    expect((await api(service.url, service.key, 'GET', `/v2/jobs/${pushed.body.id}/await`)).body.status).toBe('finished');
    const messages = (filter: Record<string, unknown>) =>
      lines.filter((line) => Object.entries(filter).every(([key, value]) => line[key] === value)).map((line) => line.msg);
    expect(messages({ versionId, level: 30 })).toEqual(
      expect.arrayContaining(['build building', 'build pushing', 'build deploying', 'build ready', 'replica starting', 'replica ready']),
    );
    await until(async () => messages({ jobId: pushed.body.id, level: 30 }).length === 1);
    expect(messages({ jobId: pushed.body.id, level: 30 })).toEqual(['job finished']);
    expect(messages({ jobId: pushed.body.id, level: 20 })).toEqual(['job started']);
    expect(lines.find((line) => line.jobId === pushed.body.id && line.msg === 'job finished')).toMatchObject({
      function: 'local/slow',
      status: 'finished',
      attempt: 1,
      waitedMs: expect.any(Number),
      durationMs: expect.any(Number),
    });
    expect(lines).toContainEqual(expect.objectContaining({ level: 20, msg: 'request', method: 'POST', path: '/v2/push', status: 200 }));
  });

  it('serves Prometheus metrics to this machine: jobs by state, queue depth, replicas per version, latencies, builds', async () => {
    const pushed = await api(service.url, service.key, 'POST', '/v2/push', { function: 'local/slow', inputs: { seconds: 0 } });
    await api(service.url, service.key, 'GET', `/v2/jobs/${pushed.body.id}/await`);
    const response = await fetch(`${service.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    const text = await response.text();
    expect(text).toContain('sluice_jobs{state="queued"} 0');
    expect(text).toContain('sluice_builds_total{outcome="ready"} 1');
    expect(text).toMatch(/sluice_jobs_completed_total\{function="local\/slow",status="finished"\} [1-9]/);
    expect(text).toMatch(/sluice_job_start_latency_seconds_count\{function="local\/slow"\} [1-9]/);
    expect(text).toMatch(/sluice_job_duration_seconds_bucket\{function="local\/slow",status="finished",le="\+Inf"\} [1-9]/);
    expect(text).toContain(`sluice_replicas{function="local/slow",version="${versionId}",state="idle"} 1`);
  });

  it('asks for a bearer token on /metrics when SLUICE_METRICS_TOKEN is set', async () => {
    const guarded = await startOn(await newDataDir(), { SLUICE_METRICS_TOKEN: 'scrape-token-0123456789' });
    try {
      expect((await fetch(`${guarded.service.url}/metrics`)).status).toBe(401);
      const scraped = await fetch(`${guarded.service.url}/metrics`, { headers: { authorization: 'Bearer scrape-token-0123456789' } });
      expect(scraped.status).toBe(200);
      // An API key speaks for one organization: it opens nothing here.
      expect((await fetch(`${guarded.service.url}/metrics`, { headers: { 'x-api-key': guarded.service.key } })).status).toBe(401);
    } finally {
      await guarded.running.close();
    }
  });
});

describe('stopping the service (SIGTERM, SIGINT)', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  /** A service with the slow function ready and a job of `seconds` running on it. */
  async function runningJob(seconds: number, graceS: number) {
    const dataDir = await mkdtemp(join(tmpdir(), 'sluice-stop-'));
    dirs.push(dataDir);
    const started = await startOn(dataDir, { SLUICE_SHUTDOWN_GRACE_S: String(graceS) });
    const deployed = await deployDirectory(started.service, await writeFunctionDir({ 'main.py': SLOW }));
    await waitForBuild(started.service, 'local/slow', deployed.body.version.id);
    const jobId = (await api(started.service.url, started.service.key, 'POST', '/v2/push', { function: 'local/slow', inputs: { seconds } })).body.id as string;
    await until(async () => (await api(started.service.url, started.service.key, 'GET', `/v2/jobs/${jobId}`)).body.status === 'processing', 30_000);
    return { ...started, dataDir, jobId };
  }

  /** The job as the next service on the same data directory reads it. */
  async function afterRestart(dataDir: string, jobId: string) {
    const next = await startOn(dataDir, { SLUICE_SHUTDOWN_GRACE_S: '0' });
    const job = await api(next.service.url, next.service.key, 'GET', `/v2/jobs/${jobId}`);
    await next.running.close();
    return job.body;
  }

  it('answers open awaits 503 with Retry-After at once, and lets a running job finish within the grace period', async () => {
    const { running, service, dataDir, jobId } = await runningJob(2, 30);
    const waiting = fetch(`${service.url}/v2/jobs/${jobId}/await`, { headers: { 'x-api-key': service.key } });
    await new Promise((resolve) => setTimeout(resolve, 200)); // the await is open
    const closing = running.close();
    const answer = await waiting;
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('5');
    expect(((await answer.json()) as { detail: string }).detail).toContain('stopping');
    await closing;
    const job = await afterRestart(dataDir, jobId);
    expect(job).toMatchObject({ status: 'finished', outputs: [expect.objectContaining({ data: 'done' })], restarts: [] });
  }, 120_000);

  it('preempts a job still running when the grace period ends: it goes back to the queue, nothing lost', async () => {
    const { running, dataDir, jobId } = await runningJob(60, 1);
    const stoppedAt = Date.now();
    await running.close();
    expect(Date.now() - stoppedAt).toBeLessThan(15_000);
    const job = await afterRestart(dataDir, jobId);
    expect(job.restarts).toEqual([expect.objectContaining({ type: 'preemption', reason: 'The service stopped while the job ran.' })]);
    expect(['queued', 'processing']).toContain(job.status);
  }, 120_000);
});
