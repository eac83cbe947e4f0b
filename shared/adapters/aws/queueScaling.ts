import {
  DeleteScalingPolicyCommand,
  DescribeScalingPoliciesCommand,
  PutScalingPolicyCommand,
  RegisterScalableTargetCommand,
  type ApplicationAutoScalingClient,
  type StepAdjustment,
} from '@aws-sdk/client-application-auto-scaling';
import { DeleteAlarmsCommand, DescribeAlarmsCommand, PutMetricAlarmCommand, type CloudWatchClient, type MetricDataQuery } from '@aws-sdk/client-cloudwatch';
import type { VersionRecord } from '../../domain/version.js';

/** Application Auto Scaling allows at most this many steps in one policy. */
const MAX_STEPS = 20;

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
 * Scales a version's ECS service out on its queue: a backlog alarm (one minute with a job
 * waiting or running) runs a step policy that sets ceil(backlog / split) tasks. Its scale-in is
 * suspended: an alarm on SQS's late metrics would stop a task started for a job that the
 * metrics do not show yet. The sweeper lowers services instead (taskScaling.ts), and a job
 * queued on an idle version starts its first task at once. Deployments made before this had
 * an idle alarm and a scale-in policy: they are removed.
 */
export async function putQueueScaling(options: QueueScalingOptions, version: VersionRecord, serviceName: string, queueName: string): Promise<void> {
  const { autoScaling, cloudWatch } = options;
  const { min, max } = taskBounds(version);
  const target = scalableTarget(options.cluster, serviceName);
  await autoScaling.send(
    new RegisterScalableTargetCommand({ ...target, MinCapacity: min, MaxCapacity: max, SuspendedState: { DynamicScalingInSuspended: true } }),
  );
  const { PolicyARN } = await autoScaling.send(
    new PutScalingPolicyCommand({
      ...target,
      PolicyName: `${serviceName}-scale-out`,
      PolicyType: 'StepScaling',
      StepScalingPolicyConfiguration: {
        AdjustmentType: 'ExactCapacity',
        StepAdjustments: backlogSteps(version.split, max),
        Cooldown: 60,
        MetricAggregationType: 'Maximum',
      },
    }),
  );
  if (!PolicyARN) throw new Error(`Application Auto Scaling returned no ARN for ${serviceName}-scale-out`);
  await cloudWatch.send(
    new PutMetricAlarmCommand({
      AlarmName: `${queueName}-backlog`,
      AlarmDescription: `Sluice: scales ${serviceName} on its queue`,
      Metrics: backlogMetric(queueName),
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
      // No datapoint is an empty queue (SQS stops reporting idle queues).
      TreatMissingData: 'notBreaching',
      AlarmActions: [PolicyARN],
    }),
  );
  // Found first, not deleted blindly: a missing one is an error whose name differs between AWS and moto.
  const { MetricAlarms = [] } = await cloudWatch.send(new DescribeAlarmsCommand({ AlarmNames: [`${queueName}-idle`] }));
  if (MetricAlarms.length > 0) await cloudWatch.send(new DeleteAlarmsCommand({ AlarmNames: [`${queueName}-idle`] }));
  const oldPolicy = `${serviceName}-scale-in`;
  const { ScalingPolicies = [] } = await autoScaling.send(
    new DescribeScalingPoliciesCommand({ ServiceNamespace: 'ecs', ResourceId: target.ResourceId, PolicyNames: [oldPolicy] }),
  );
  if (ScalingPolicies.some((policy) => policy.PolicyName === oldPolicy))
    await autoScaling.send(new DeleteScalingPolicyCommand({ ...target, PolicyName: oldPolicy }));
}
