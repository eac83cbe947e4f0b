import {
  PutScalingPolicyCommand,
  RegisterScalableTargetCommand,
  type ApplicationAutoScalingClient,
  type StepAdjustment,
} from '@aws-sdk/client-application-auto-scaling';
import { PutMetricAlarmCommand, type CloudWatchClient, type MetricDataQuery } from '@aws-sdk/client-cloudwatch';
import type { VersionRecord } from '../../domain/version.js';

/** Application Auto Scaling allows at most this many steps in one policy. */
const MAX_STEPS = 20;
/** Minutes an empty queue waits before its service shrinks to its minimum. */
const IDLE_MINUTES_BEFORE_SCALE_IN = 5;

export interface QueueScalingOptions {
  autoScaling: ApplicationAutoScalingClient;
  cloudWatch: CloudWatchClient;
  cluster: string;
}

/** The tasks of a version between its minimum and maximum: each task runs `split` replicas. */
export function taskBounds(version: Pick<VersionRecord, 'minimumReplicas' | 'maximumReplicas' | 'split'>): { min: number; max: number } {
  const min = Math.ceil(version.minimumReplicas / version.split);
  // No maximum declared means one replica; never below the minimum, which AWS would refuse.
  return { min, max: Math.max(Math.ceil((version.maximumReplicas || 1) / version.split), min, 1) };
}

/**
 * The scale-out steps: a backlog (jobs waiting or running) of b asks for ceil(b / split) tasks,
 * as exact capacities. The alarm's threshold is 1, and a step's bounds are relative to it.
 */
export function backlogSteps(split: number, maxTasks: number): StepAdjustment[] {
  const exact = Math.min(maxTasks, MAX_STEPS);
  return Array.from({ length: exact }, (_, index) => {
    const tasks = index + 1;
    const last = tasks === exact;
    return { MetricIntervalLowerBound: index * split, MetricIntervalUpperBound: last ? undefined : tasks * split, ScalingAdjustment: last ? maxTasks : tasks };
  });
}

/** Visible plus in-flight messages of the queue: the jobs waiting for a replica or running on one. */
function backlogMetric(queueName: string): MetricDataQuery[] {
  const metric = (id: string, name: string): MetricDataQuery => ({
    Id: id,
    ReturnData: false,
    MetricStat: { Metric: { Namespace: 'AWS/SQS', MetricName: name, Dimensions: [{ Name: 'QueueName', Value: queueName }] }, Period: 60, Stat: 'Maximum' },
  });
  return [
    metric('waiting', 'ApproximateNumberOfMessagesVisible'),
    metric('running', 'ApproximateNumberOfMessagesNotVisible'),
    { Id: 'backlog', Expression: 'waiting + running', Label: 'jobs waiting or running', ReturnData: true },
  ];
}

const scalableTarget = (cluster: string, serviceName: string) =>
  ({ ServiceNamespace: 'ecs', ResourceId: `service/${cluster}/${serviceName}`, ScalableDimension: 'ecs:service:DesiredCount' }) as const;

/** Holds a service at zero tasks: its policies stay, but may set no more than zero. A redeploy registers the bounds again. */
export async function stopQueueScaling(options: QueueScalingOptions, serviceName: string): Promise<void> {
  await options.autoScaling.send(new RegisterScalableTargetCommand({ ...scalableTarget(options.cluster, serviceName), MinCapacity: 0, MaxCapacity: 0 }));
}

/**
 * Scales a version's ECS service on its queue, from zero too: a backlog alarm (one minute with
 * a job waiting or running) runs a step policy that sets ceil(backlog / split) tasks, so the
 * first push to an idle version starts a task at the next minute's evaluation; an idle alarm
 * (five minutes with none) sets the minimum. In-flight messages count, so a service never
 * shrinks below what is running; busy tasks also protect themselves from scale-in.
 */
export async function putQueueScaling(options: QueueScalingOptions, version: VersionRecord, serviceName: string, queueName: string): Promise<void> {
  const { autoScaling, cloudWatch } = options;
  const { min, max } = taskBounds(version);
  const target = scalableTarget(options.cluster, serviceName);
  await autoScaling.send(new RegisterScalableTargetCommand({ ...target, MinCapacity: min, MaxCapacity: max }));
  const policy = async (name: string, steps: StepAdjustment[]) => {
    const { PolicyARN } = await autoScaling.send(
      new PutScalingPolicyCommand({
        ...target,
        PolicyName: `${serviceName}-${name}`,
        PolicyType: 'StepScaling',
        StepScalingPolicyConfiguration: { AdjustmentType: 'ExactCapacity', StepAdjustments: steps, Cooldown: 60, MetricAggregationType: 'Maximum' },
      }),
    );
    if (!PolicyARN) throw new Error(`Application Auto Scaling returned no ARN for ${serviceName}-${name}`);
    return PolicyARN;
  };
  const scaleOut = await policy('scale-out', backlogSteps(version.split, max));
  const scaleIn = await policy('scale-in', [{ MetricIntervalUpperBound: 0, ScalingAdjustment: min }]);
  const alarm = (name: string, operator: 'GreaterThanOrEqualToThreshold' | 'LessThanThreshold', periods: number, action: string) =>
    cloudWatch.send(
      new PutMetricAlarmCommand({
        AlarmName: `${queueName}-${name}`,
        AlarmDescription: `Sluice: scales ${serviceName} on its queue`,
        Metrics: backlogMetric(queueName),
        Threshold: 1,
        ComparisonOperator: operator,
        EvaluationPeriods: periods,
        // No datapoint is an empty queue (SQS stops reporting idle queues).
        TreatMissingData: operator === 'LessThanThreshold' ? 'breaching' : 'notBreaching',
        AlarmActions: [action],
      }),
    );
  await alarm('backlog', 'GreaterThanOrEqualToThreshold', 1, scaleOut);
  await alarm('idle', 'LessThanThreshold', IDLE_MINUTES_BEFORE_SCALE_IN, scaleIn);
}
