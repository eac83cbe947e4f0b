import { DescribeScalableTargetsCommand, DescribeScalingPoliciesCommand, type ScalingPolicy } from '@aws-sdk/client-application-auto-scaling';
import { DescribeAlarmsCommand, GetMetricStatisticsCommand, SetAlarmStateCommand, type MetricAlarm, type Statistic } from '@aws-sdk/client-cloudwatch';
import { DescribeServicesCommand, UpdateServiceCommand } from '@aws-sdk/client-ecs';
import type { AwsClients } from './awsClients.js';
import { AWS_SQS_METRIC_TIMES, SqsMetrics, type SqsMetricTimes } from './sqsMetrics.js';

export interface AutoScalingOptions {
  clients: AwsClients;
  /** Queues whose metrics SQS publishes (the deployment's, by name prefix). */
  queuePrefix: string;
  /** AWS's one-minute cadence divided by this: 60 makes a minute a second. */
  timeScale: number;
  onEvent: (message: string) => void;
  /** Called after a service's desired count changed, so ECS acts at once. */
  onScaled: () => void;
  /** When SQS's datapoints reach CloudWatch (AWS's times by default, divided by timeScale). */
  sqsMetricTimes?: SqsMetricTimes;
  /** The clock of metric timestamps and alarm periods; specs step it a minute a tick. */
  now?: () => number;
}

const COMPARE: Record<string, (value: number, threshold: number) => boolean> = {
  GreaterThanOrEqualToThreshold: (value, threshold) => value >= threshold,
  GreaterThanThreshold: (value, threshold) => value > threshold,
  LessThanThreshold: (value, threshold) => value < threshold,
  LessThanOrEqualToThreshold: (value, threshold) => value <= threshold,
};

/**
 * What AWS does between the queues and the services, once per (scaled) minute: SQS publishes
 * each queue's ApproximateNumberOfMessagesVisible and ...NotVisible to CloudWatch (moto), late,
 * and not at all for an inactive queue (./sqsMetrics.ts); CloudWatch evaluates the alarms from
 * the latest datapoints it has (a metric or a sum of metrics, over the alarm's evaluation
 * periods; no datapoint counts as the alarm's TreatMissingData says) and records their state;
 * while an alarm is in ALARM, Application
 * Auto Scaling runs its step scaling policies (ExactCapacity, ChangeInCapacity), clamped to
 * the scalable target's minimum and maximum, and sets the ECS service's desired count (only
 * upwards when the target's dynamic scale-in is suspended). A target below its minimum is
 * raised to it, as registering a target does.
 */
export class AutoScalingEmulator {
  private readonly history = new Map<string, boolean[]>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | null = null;
  private readonly sqsMetrics: SqsMetrics;
  private readonly now: () => number;

  constructor(private readonly options: AutoScalingOptions) {
    this.now = options.now ?? Date.now;
    this.sqsMetrics = new SqsMetrics({
      clients: options.clients,
      queuePrefix: options.queuePrefix,
      timeScale: options.timeScale,
      times: options.sqsMetricTimes ?? AWS_SQS_METRIC_TIMES,
      now: this.now,
    });
  }

  /** The product's API call on a queue (its URL or name): SQS counts it as activity. */
  queueAccessed(queue: string): void {
    this.sqsMetrics.accessed(queue);
  }

  start(): void {
    this.timer = setInterval(() => {
      this.ticking ??= this.tick()
        .catch((error: unknown) => this.options.onEvent(`auto scaling: ${(error as Error).message}`))
        .finally(() => {
          this.ticking = null;
        });
    }, 60_000 / this.options.timeScale);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.ticking;
  }

  async tick(): Promise<void> {
    await this.sqsMetrics.publish();
    const { MetricAlarms = [] } = await this.options.clients.cloudWatch.send(new DescribeAlarmsCommand({}));
    const policies = await this.policies();
    let scaled = false;
    for (const alarm of MetricAlarms) {
      const breaching = await this.evaluate(alarm);
      if (breaching === null) continue;
      if (!breaching) continue;
      for (const arn of alarm.AlarmActions ?? []) {
        const policy = policies.find((candidate) => candidate.PolicyARN === arn);
        if (policy) scaled = (await this.apply(policy, breaching.value - (alarm.Threshold ?? 0))) || scaled;
      }
    }
    scaled = (await this.enforceBounds()) || scaled;
    if (scaled) this.options.onScaled();
  }

  /**
   * The alarm's latest value and whether it is in ALARM (its last EvaluationPeriods datapoints
   * breach); null when it cannot say. A period without a datapoint breaches with
   * TreatMissingData breaching, does not with notBreaching, and leaves the state as it is
   * otherwise. A missing datapoint that breaches stands for a value beyond any step's bound.
   */
  private async evaluate(alarm: MetricAlarm): Promise<{ value: number } | false | null> {
    const compare = COMPARE[alarm.ComparisonOperator ?? ''];
    if (!compare) return null;
    const measured = await this.alarmValue(alarm);
    const missing = alarm.TreatMissingData === 'breaching' || alarm.TreatMissingData === 'notBreaching' ? alarm.TreatMissingData : null;
    if (measured === null && missing === null) return null;
    const beyond = compare(Number.POSITIVE_INFINITY, 0) ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
    const value = measured ?? (missing === 'breaching' ? beyond : null);
    const breaches = value === null ? false : compare(value, alarm.Threshold ?? 0);
    const name = alarm.AlarmName as string;
    const periods = alarm.EvaluationPeriods ?? 1;
    const history = [...(this.history.get(name) ?? []), breaches].slice(-periods);
    this.history.set(name, history);
    const inAlarm = history.length === periods && history.every(Boolean);
    const state = inAlarm ? 'ALARM' : 'OK';
    if (alarm.StateValue !== state) {
      const reading = measured === null ? `no datapoint (TreatMissingData ${missing})` : String(measured);
      await this.options.clients.cloudWatch.send(
        new SetAlarmStateCommand({ AlarmName: name, StateValue: state, StateReason: `Emulated evaluation: ${reading} against ${alarm.Threshold}` }),
      );
    }
    return inAlarm && value !== null ? { value } : false;
  }

  /** A metric alarm's value over its last period; for metric math, the sum its expression names (`a + b`). */
  private async alarmValue(alarm: MetricAlarm): Promise<number | null> {
    if (alarm.MetricName)
      return this.statistic(alarm.Namespace as string, alarm.MetricName, alarm.Dimensions ?? [], (alarm.Statistic ?? 'Average') as Statistic);
    const queries = alarm.Metrics ?? [];
    const result = queries.find((query) => query.ReturnData !== false && query.Expression);
    if (!result?.Expression) return null;
    const ids = result.Expression.split('+').map((term) => term.trim());
    let sum = 0;
    for (const id of ids) {
      const stat = queries.find((query) => query.Id === id)?.MetricStat;
      if (!stat?.Metric) throw new Error(`alarm ${alarm.AlarmName}: the emulation evaluates sums of metrics only, not "${result.Expression}"`);
      const value = await this.statistic(
        stat.Metric.Namespace as string,
        stat.Metric.MetricName as string,
        stat.Metric.Dimensions ?? [],
        stat.Stat as Statistic,
      );
      if (value === null) return null;
      sum += value;
    }
    return sum;
  }

  /** The latest minute's datapoints CloudWatch has: those of a minute ago and before, since SQS's arrive late. */
  private async statistic(namespace: string, metric: string, dimensions: { Name?: string; Value?: string }[], statistic: Statistic): Promise<number | null> {
    const now = this.now();
    const minute = this.sqsMetrics.scaled(60);
    const lateness = this.sqsMetrics.scaled((this.options.sqsMetricTimes ?? AWS_SQS_METRIC_TIMES).delaySeconds);
    const { Datapoints = [] } = await this.options.clients.cloudWatch.send(
      new GetMetricStatisticsCommand({
        Namespace: namespace,
        MetricName: metric,
        Dimensions: dimensions.map((dimension) => ({ Name: dimension.Name, Value: dimension.Value })),
        StartTime: new Date(now - lateness - minute * 1.5),
        EndTime: new Date(now + minute / 2),
        Period: 60,
        Statistics: [statistic],
      }),
    );
    const values = Datapoints.map((point) => point[statistic] ?? 0);
    return values.length === 0 ? null : Math.max(...values);
  }

  private async policies(): Promise<ScalingPolicy[]> {
    return (await this.options.clients.autoScaling.send(new DescribeScalingPoliciesCommand({ ServiceNamespace: 'ecs' }))).ScalingPolicies ?? [];
  }

  private async bounds(resourceId: string) {
    const { ScalableTargets = [] } = await this.options.clients.autoScaling.send(
      new DescribeScalableTargetsCommand({ ServiceNamespace: 'ecs', ResourceIds: [resourceId] }),
    );
    return ScalableTargets[0];
  }

  /** Runs a step scaling policy for a breach of `delta` above (or below) the alarm threshold. */
  private async apply(policy: ScalingPolicy, delta: number): Promise<boolean> {
    const config = policy.StepScalingPolicyConfiguration;
    if (!config) {
      this.options.onEvent(`policy ${policy.PolicyName}: the emulation runs step scaling policies only`);
      return false;
    }
    const step = (config.StepAdjustments ?? []).find(
      (candidate) =>
        (candidate.MetricIntervalLowerBound === undefined || delta >= candidate.MetricIntervalLowerBound) &&
        (candidate.MetricIntervalUpperBound === undefined || delta < candidate.MetricIntervalUpperBound),
    );
    if (!step) return false;
    const current = await this.desiredCount(policy.ResourceId as string);
    if (current === null) return false;
    const wanted = (config.AdjustmentType === 'ExactCapacity' ? step.ScalingAdjustment : current + (step.ScalingAdjustment ?? 0)) ?? current;
    // A target with dynamic scale-in suspended takes a policy's raises only.
    if (wanted < current && (await this.bounds(policy.ResourceId as string))?.SuspendedState?.DynamicScalingInSuspended) return false;
    return this.setDesired(policy.ResourceId as string, wanted, `policy ${policy.PolicyName}`);
  }

  private async enforceBounds(): Promise<boolean> {
    const { ScalableTargets = [] } = await this.options.clients.autoScaling.send(new DescribeScalableTargetsCommand({ ServiceNamespace: 'ecs' }));
    let changed = false;
    for (const target of ScalableTargets) {
      const current = await this.desiredCount(target.ResourceId as string);
      if (current !== null) changed = (await this.setDesired(target.ResourceId as string, current, 'the scalable target’s bounds')) || changed;
    }
    return changed;
  }

  private async desiredCount(resourceId: string): Promise<number | null> {
    const [, cluster, service] = resourceId.split('/');
    const { services = [] } = await this.options.clients.ecs.send(new DescribeServicesCommand({ cluster, services: [service as string] }));
    return services[0]?.status === 'ACTIVE' ? (services[0].desiredCount ?? 0) : null;
  }

  private async setDesired(resourceId: string, wanted: number, why: string): Promise<boolean> {
    const target = await this.bounds(resourceId);
    const current = await this.desiredCount(resourceId);
    if (!target || current === null) return false;
    const desired = Math.min(target.MaxCapacity ?? wanted, Math.max(target.MinCapacity ?? 0, wanted));
    if (desired === current) return false;
    const [, cluster, service] = resourceId.split('/');
    await this.options.clients.ecs.send(new UpdateServiceCommand({ cluster, service, desiredCount: desired }));
    this.options.onEvent(`Application Auto Scaling (${why}) set ${service} from ${current} to ${desired} tasks`);
    return true;
  }
}
