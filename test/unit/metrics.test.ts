import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../shared/domain/job.js';
import { formatPrometheus, Histogram } from '../../shared/domain/prometheusText.js';
import { metricsEndpoint } from '../../shared/http/metricsEndpoint.js';
import { ServiceMetrics } from '../../shared/services/serviceMetrics.js';

const SECOND = 1_000_000;
const job = (patch: Partial<JobRecord>): JobRecord =>
  ({
    id: 'j',
    versionId: 'v1',
    ownerName: 'acme',
    functionName: 'resize',
    status: 'processing',
    createdAt: 0,
    startedAt: null,
    completedAt: null,
    attempts: 1,
    error: '',
    ...patch,
  }) as JobRecord;
const noSnapshot = { liveJobs: [], replicas: [] };
/** The value of the one line that starts with `series` (name and labels as printed). */
const valueOf = (text: string, series: string) =>
  Number(
    text
      .split('\n')
      .find((line) => line.startsWith(`${series} `))
      ?.split(' ')[1],
  );

describe('the Prometheus exposition', () => {
  it('writes HELP and TYPE once per family, then each sample with its labels escaped', () => {
    const text = formatPrometheus([{ name: 'x_total', help: 'Things.', type: 'counter', samples: [{ labels: { fn: 'a "b"\\c' }, value: 3 }] }]);
    expect(text).toBe('# HELP x_total Things.\n# TYPE x_total counter\nx_total{fn="a \\"b\\"\\\\c"} 3\n');
  });

  it('keeps histogram buckets cumulative, with +Inf, sum and count', () => {
    const histogram = new Histogram([1, 5]);
    for (const value of [0.5, 2, 10]) histogram.observe({}, value);
    const text = formatPrometheus([{ name: 'h', help: 'H.', type: 'histogram', samples: histogram.samples() }]);
    expect(valueOf(text, 'h_bucket{le="1"}')).toBe(1);
    expect(valueOf(text, 'h_bucket{le="5"}')).toBe(2);
    expect(valueOf(text, 'h_bucket{le="+Inf"}')).toBe(3);
    expect(valueOf(text, 'h_sum')).toBe(12.5);
    expect(valueOf(text, 'h_count')).toBe(3);
  });
});

describe('the service metrics', () => {
  it("measures push-to-start on a job's first start only, and duration by final status", () => {
    const metrics = new ServiceMetrics();
    metrics.record({ kind: 'job', event: { type: 'started', job: job({ createdAt: 0, startedAt: 2 * SECOND }) } });
    // A restarted job's second start waited for its first attempt too: not a start latency.
    metrics.record({ kind: 'job', event: { type: 'started', job: job({ createdAt: 0, startedAt: 90 * SECOND, attempts: 2 }) } });
    metrics.record({ kind: 'job', event: { type: 'completed', job: job({ status: 'finished', startedAt: 2 * SECOND, completedAt: 5 * SECOND }) } });
    metrics.record({ kind: 'job', event: { type: 'completed', job: job({ status: 'cancelled', startedAt: null, completedAt: 1 }) } });
    const text = metrics.render(noSnapshot);
    expect(valueOf(text, 'sluice_job_start_latency_seconds_count{function="acme/resize"}')).toBe(1);
    expect(valueOf(text, 'sluice_job_start_latency_seconds_sum{function="acme/resize"}')).toBe(2);
    expect(valueOf(text, 'sluice_job_duration_seconds_sum{function="acme/resize",status="finished"}')).toBe(3);
    expect(valueOf(text, 'sluice_jobs_completed_total{function="acme/resize",status="cancelled"}')).toBe(1);
    expect(text).not.toContain('sluice_job_duration_seconds_count{function="acme/resize",status="cancelled"}');
  });

  it('counts builds and webhook attempts by outcome, and replicas that crashed apart from those stopped', () => {
    const metrics = new ServiceMetrics();
    const version = { id: 'v1', buildError: null } as never;
    metrics.record({ kind: 'build', version, status: 'building' });
    metrics.record({ kind: 'build', version, status: 'ready' });
    metrics.record({ kind: 'build', version, status: 'error' });
    metrics.record({ kind: 'webhook', delivery: {} as never, outcome: 'retry', status: 500, error: 'HTTP 500' });
    metrics.record({ kind: 'webhook', delivery: {} as never, outcome: 'retry', status: null, error: 'refused' });
    metrics.record({ kind: 'replica', event: { what: 'crashed', versionId: 'v1', replicaId: 'r', exitCode: null, signal: 'SIGSEGV' } });
    metrics.record({ kind: 'replica', event: { what: 'exited', versionId: 'v1', replicaId: 'r2', exitCode: 0, signal: null } });
    const text = metrics.render(noSnapshot);
    expect(valueOf(text, 'sluice_builds_total{outcome="ready"}')).toBe(1);
    expect(valueOf(text, 'sluice_builds_total{outcome="error"}')).toBe(1);
    expect(text).not.toContain('outcome="building"');
    expect(valueOf(text, 'sluice_webhook_attempts_total{outcome="retry"}')).toBe(2);
    expect(valueOf(text, 'sluice_replica_exits_total{reason="crashed"}')).toBe(1);
    expect(valueOf(text, 'sluice_replica_exits_total{reason="exited"}')).toBe(1);
  });

  it('reads jobs by state, queue depth and replicas per version from the snapshot, zero states included', () => {
    const text = new ServiceMetrics().render({
      liveJobs: [job({ status: 'queued' }), job({ status: 'queued' }), job({ status: 'queued', versionId: 'v2' })],
      replicas: [{ versionId: 'v1', function: 'acme/resize', counts: { starting: 0, setup: 1, active: 2, idle: 0, awaiting_resources: 1 } }],
    });
    expect(valueOf(text, 'sluice_jobs{state="queued"}')).toBe(3);
    expect(valueOf(text, 'sluice_jobs{state="processing"}')).toBe(0);
    expect(valueOf(text, 'sluice_queue_depth{function="acme/resize",version="v1"}')).toBe(2);
    expect(valueOf(text, 'sluice_queue_depth{function="acme/resize",version="v2"}')).toBe(1);
    expect(valueOf(text, 'sluice_replicas{function="acme/resize",version="v1",state="active"}')).toBe(2);
    expect(valueOf(text, 'sluice_replicas{function="acme/resize",version="v1",state="awaiting_resources"}')).toBe(1);
  });
});

describe('who may read /metrics', () => {
  const request = (remoteAddress: string, authorization?: string) =>
    ({ method: 'GET', socket: { remoteAddress }, headers: authorization === undefined ? {} : { authorization } }) as unknown as IncomingMessage;
  const url = new URL('http://service/metrics');
  const render = async () => 'sluice_jobs 0\n';

  it('without SLUICE_METRICS_TOKEN: this machine only (IPv4, IPv6 and mapped loopback), another one is refused naming the setting', async () => {
    const endpoint = metricsEndpoint({ token: undefined, render });
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1'])
      expect(await endpoint.serve(request(address), url)).toMatchObject({ status: 200, text: 'sluice_jobs 0\n' });
    const refused = await endpoint.serve(request('10.1.2.3'), url);
    expect(refused).toMatchObject({ status: 403, body: { detail: expect.stringContaining('SLUICE_METRICS_TOKEN') } });
  });

  it('with SLUICE_METRICS_TOKEN: its bearer token from anywhere, nothing without it, not even from this machine', async () => {
    const endpoint = metricsEndpoint({ token: 'metrics-token-0123456789', render });
    expect(await endpoint.serve(request('10.1.2.3', 'Bearer metrics-token-0123456789'), url)).toMatchObject({ status: 200 });
    expect(await endpoint.serve(request('127.0.0.1'), url)).toMatchObject({ status: 401 });
    expect(await endpoint.serve(request('10.1.2.3', 'Bearer metrics-token-012345678'), url)).toMatchObject({ status: 401 });
    expect(await endpoint.serve(request('10.1.2.3', 'metrics-token-0123456789'), url)).toMatchObject({ status: 401 });
  });
});
