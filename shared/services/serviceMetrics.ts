import type { JobRecord, JobStatus } from '../domain/job.js';
import type { MetricFamily } from '../domain/prometheusText.js';
import { Counter, formatPrometheus, Histogram } from '../domain/prometheusText.js';
import type { WorkerCounts } from '../domain/wire/common.js';
import type { OperationalEvent, Telemetry } from '../ports/telemetry.js';

/** Push to start: from a fraction of a second (a warm replica) to minutes (a cold GPU). */
const START_LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
const DURATION_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 600, 1800, 3600];
const MICROS_PER_SECOND = 1_000_000;

/** What is read when scraped, not counted as it happens: the jobs waiting or running, and the replicas. */
export interface MetricsSnapshot {
  /** Queued and processing jobs (the store's view, whichever process moved them). */
  liveJobs: readonly Pick<JobRecord, 'status' | 'versionId' | 'ownerName' | 'functionName'>[];
  /** Replicas by state, per version that has any. */
  replicas: readonly { versionId: string; function: string; counts: WorkerCounts }[];
}

/**
 * The service's metrics: counts and histograms gathered from its operational events since it
 * started, and gauges read at each scrape. Labels name functions and versions of every
 * organization, which is why /metrics is guarded (docs/security.md, "Metrics").
 */
export class ServiceMetrics implements Telemetry {
  private readonly startLatency = new Histogram(START_LATENCY_BUCKETS);
  private readonly duration = new Histogram(DURATION_BUCKETS);
  private readonly completed = new Counter();
  private readonly builds = new Counter();
  private readonly webhooks = new Counter();
  private readonly replicaExits = new Counter();

  record(event: OperationalEvent): void {
    switch (event.kind) {
      case 'job':
        return this.recordJob(event.event.job, event.event.type);
      case 'build':
        if (event.status === 'ready' || event.status === 'error') this.builds.increment({ outcome: event.status });
        return;
      case 'webhook':
        this.webhooks.increment({ outcome: event.outcome });
        return;
      case 'replica':
        if (event.event.what === 'exited' || event.event.what === 'crashed' || event.event.what === 'setup_failed')
          this.replicaExits.increment({ reason: event.event.what });
        return;
    }
  }

  render(snapshot: MetricsSnapshot): string {
    return formatPrometheus([...this.gauges(snapshot), ...this.counted()]);
  }

  private recordJob(job: JobRecord, type: 'started' | 'output' | 'completed'): void {
    const labels = { function: `${job.ownerName}/${job.functionName}` };
    // The first start only: a restarted job's wait since its push is not a start latency.
    if (type === 'started' && job.startedAt !== null && job.attempts === 1)
      this.startLatency.observe(labels, (job.startedAt - job.createdAt) / MICROS_PER_SECOND);
    if (type !== 'completed') return;
    this.completed.increment({ ...labels, status: job.status });
    if (job.startedAt !== null && job.completedAt !== null)
      this.duration.observe({ ...labels, status: job.status }, (job.completedAt - job.startedAt) / MICROS_PER_SECOND);
  }

  private gauges(snapshot: MetricsSnapshot): MetricFamily[] {
    const byState = new Counter();
    const depth = new Counter();
    for (const state of ['queued', 'processing'] satisfies JobStatus[]) byState.increment({ state }, 0);
    for (const job of snapshot.liveJobs) {
      byState.increment({ state: job.status });
      if (job.status === 'queued') depth.increment({ function: `${job.ownerName}/${job.functionName}`, version: job.versionId });
    }
    const replicas = snapshot.replicas.flatMap(({ versionId, function: fn, counts }) =>
      Object.entries(counts).map(([state, value]) => ({ labels: { function: fn, version: versionId, state }, value })),
    );
    return [
      { name: 'sluice_jobs', help: 'Jobs waiting or running, by state.', type: 'gauge', samples: byState.samples() },
      { name: 'sluice_queue_depth', help: 'Queued jobs per version.', type: 'gauge', samples: depth.samples() },
      {
        name: 'sluice_replicas',
        help: 'Replicas per version, by state (awaiting_resources: wanted, but no machine of its type is free).',
        type: 'gauge',
        samples: replicas,
      },
    ];
  }

  private counted(): MetricFamily[] {
    return [
      {
        name: 'sluice_jobs_completed_total',
        help: 'Jobs ended since the service started, by final status.',
        type: 'counter',
        samples: this.completed.samples(),
      },
      { name: 'sluice_job_start_latency_seconds', help: 'From push to the first start of a job.', type: 'histogram', samples: this.startLatency.samples() },
      { name: 'sluice_job_duration_seconds', help: "From a job's start to its end, by final status.", type: 'histogram', samples: this.duration.samples() },
      { name: 'sluice_builds_total', help: 'Builds ended since the service started, by outcome.', type: 'counter', samples: this.builds.samples() },
      {
        name: 'sluice_webhook_attempts_total',
        help: 'Webhook delivery attempts, by outcome (retry: failed, tried again later; failed: given up).',
        type: 'counter',
        samples: this.webhooks.samples(),
      },
      {
        name: 'sluice_replica_exits_total',
        help: 'Replicas that ended, by reason (crashed: on their own).',
        type: 'counter',
        samples: this.replicaExits.samples(),
      },
    ];
  }
}
