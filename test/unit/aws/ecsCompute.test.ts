import {
  ApplicationAutoScalingClient,
  DeleteScalingPolicyCommand,
  DescribeScalingPoliciesCommand,
  PutScalingPolicyCommand,
  RegisterScalableTargetCommand,
} from '@aws-sdk/client-application-auto-scaling';
import { CloudWatchClient, DeleteAlarmsCommand, DescribeAlarmsCommand, PutMetricAlarmCommand } from '@aws-sdk/client-cloudwatch';
import { CreateServiceCommand, DescribeServicesCommand, ECSClient, RegisterTaskDefinitionCommand, UpdateServiceCommand } from '@aws-sdk/client-ecs';
import { CreateQueueCommand, GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { createEcsCompute } from '../../../shared/adapters/aws/ecsCompute.js';
import { MACHINE_CAPACITY } from '../../../infra/machineTypes.js';
import { MACHINE_TYPES, type MachineType } from '../../../shared/domain/machineTypes.js';
import { aVersion } from '../../support/fixtures.js';

const ecs = mockClient(ECSClient);
const autoScaling = mockClient(ApplicationAutoScalingClient);
const cloudWatch = mockClient(CloudWatchClient);
const sqs = mockClient(SQSClient);
const IMAGE = '123456789012.dkr.ecr.eu-west-1.amazonaws.com/sluice-functions:v1';
const DLQ_ARN = 'arn:aws:sqs:eu-west-1:123456789012:sluice-dlq';
const TASK_DEFINITION_ARN = 'arn:aws:ecs:eu-west-1:123456789012:task-definition/sluice-v1:3';

const OPTIONS = {
  ecs: new ECSClient({ region: 'eu-west-1' }),
  autoScaling: new ApplicationAutoScalingClient({ region: 'eu-west-1' }),
  cloudWatch: new CloudWatchClient({ region: 'eu-west-1' }),
  sqs: new SQSClient({ region: 'eu-west-1' }),
  cluster: 'sluice',
  queuePrefix: 'sluice-',
  queueUrlOf: async (versionId: string) => `https://sqs.test/1/sluice-v-${versionId}`,
  executionRoleArn: 'arn:aws:iam::123456789012:role/execution',
  taskRoleArn: 'arn:aws:iam::123456789012:role/task',
  logGroup: '/sluice/workers',
  region: 'eu-west-1',
  capacityProviderOf: (machineType: MachineType) => `sluice-${machineType}-provider`,
  machineTypes: ['cpu', 't4'] as MachineType[],
  environment: { SLUICE_TABLE_PREFIX: 'sluice-', SLUICE_MODE: 'local' },
  subnets: ['subnet-a', 'subnet-b'],
  securityGroups: ['sg-workers'],
};
const compute = createEcsCompute(OPTIONS);

const input = <T>(calls: { args: [{ input: T }] }[]) => calls.map((call) => call.args[0].input);

beforeEach(() => {
  ecs.reset();
  autoScaling.reset();
  cloudWatch.reset();
  sqs.reset();
  autoScaling
    .on(PutScalingPolicyCommand)
    .callsFake((request: { PolicyName: string }) => ({ PolicyARN: `arn:policy/${request.PolicyName.split('-').pop() === 'out' ? 'scale-out' : 'scale-in'}` }));
  cloudWatch.on(DescribeAlarmsCommand).resolves({ MetricAlarms: [] });
  autoScaling.on(DescribeScalingPoliciesCommand).resolves({ ScalingPolicies: [] });
  sqs.on(GetQueueUrlCommand, { QueueName: 'sluice-dlq' }).resolves({ QueueUrl: 'https://sqs.test/1/sluice-dlq' });
  sqs
    .on(GetQueueAttributesCommand, { QueueUrl: 'https://sqs.test/1/sluice-dlq', AttributeNames: ['QueueArn'] })
    .resolves({ Attributes: { QueueArn: DLQ_ARN } });
  sqs.on(CreateQueueCommand).resolves({ QueueUrl: 'https://sqs.test/1/sluice-v-x' });
  ecs.on(RegisterTaskDefinitionCommand).resolves({ taskDefinition: { taskDefinitionArn: TASK_DEFINITION_ARN } });
  ecs.on(DescribeServicesCommand).resolves({ services: [], failures: [{ reason: 'MISSING' }] });
});

describe('createEcsCompute: deployVersion', () => {
  it('creates the version queue with a redrive policy to the DLQ', async () => {
    const version = aVersion({ computeType: 't4' });
    await compute.deployVersion(version, IMAGE);
    expect(input(sqs.commandCalls(CreateQueueCommand))).toEqual([
      {
        QueueName: `sluice-v-${version.id}`,
        Attributes: {
          VisibilityTimeout: '60',
          MessageRetentionPeriod: '1209600',
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: DLQ_ARN, maxReceiveCount: 5 }),
        },
      },
    ]);
  });

  it('keeps a waiting job’s message 14 days, SQS’s longest and the DLQ’s, not the 4-day default', async () => {
    await compute.deployVersion(aVersion(), IMAGE);
    expect(input(sqs.commandCalls(CreateQueueCommand))[0]?.Attributes?.MessageRetentionPeriod).toBe(String(14 * 24 * 3600));
  });

  it('registers a task definition asking one GPU for a GPU machine type', async () => {
    const version = aVersion({ computeType: 't4', split: 4 });
    await compute.deployVersion(version, IMAGE);
    expect(input(ecs.commandCalls(RegisterTaskDefinitionCommand))).toEqual([
      {
        family: `sluice-${version.id}`,
        requiresCompatibilities: ['EC2'],
        networkMode: 'awsvpc',
        executionRoleArn: 'arn:aws:iam::123456789012:role/execution',
        taskRoleArn: 'arn:aws:iam::123456789012:role/task',
        containerDefinitions: [
          {
            name: 'worker',
            image: IMAGE,
            essential: true,
            memory: 14 * 1024,
            linuxParameters: {
              sharedMemorySize: 7 * 1024,
              capabilities: { drop: ['ALL'], add: ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'KILL', 'SETGID', 'SETUID'] },
            },
            dockerSecurityOptions: ['no-new-privileges'],
            ulimits: [{ name: 'memlock', softLimit: -1, hardLimit: -1 }],
            environment: [
              { name: 'SLUICE_TABLE_PREFIX', value: 'sluice-' },
              { name: 'SLUICE_MODE', value: 'aws' },
              { name: 'SLUICE_VERSION_ID', value: version.id },
            ],
            logConfiguration: {
              logDriver: 'awslogs',
              options: { 'awslogs-group': '/sluice/workers', 'awslogs-region': 'eu-west-1', 'awslogs-stream-prefix': `v-${version.id}` },
            },
            resourceRequirements: [{ type: 'GPU', value: '1' }],
          },
        ],
      },
    ]);
  });

  it('asks no GPU for a cpu function', async () => {
    await compute.deployVersion(aVersion({ computeType: 'cpu', split: 1 }), IMAGE);
    const container = ecs.commandCalls(RegisterTaskDefinitionCommand)[0]?.args[0].input.containerDefinitions?.[0];
    expect(container?.resourceRequirements).toBeUndefined();
  });

  it('gives a cpu task a hard memory limit and /dev/shm of half of it, and leaves locked memory at its default', async () => {
    await compute.deployVersion(aVersion({ computeType: 'cpu', split: 1 }), IMAGE);
    const container = ecs.commandCalls(RegisterTaskDefinitionCommand)[0]?.args[0].input.containerDefinitions?.[0];
    expect(container).toMatchObject({ memory: 3 * 1024, linuxParameters: { sharedMemorySize: 1536 } });
    expect(container?.memoryReservation).toBeUndefined();
    expect(container?.ulimits).toBeUndefined();
  });

  it.each(MACHINE_TYPES)('sizes a %s task to its share of its instance, leaving the OS, Docker and the ECS agent at least a tenth', async (machineType) => {
    await compute.deployVersion(aVersion({ computeType: machineType }), IMAGE);
    const container = ecs.commandCalls(RegisterTaskDefinitionCommand)[0]?.args[0].input.containerDefinitions?.[0];
    const { memoryGiB, gpusPerInstance } = MACHINE_CAPACITY[machineType];
    const share = (memoryGiB * 1024) / Math.max(gpusPerInstance, 1);
    expect(container?.memory).toBeLessThanOrEqual(share * 0.9);
    expect(container?.memory).toBeGreaterThanOrEqual(share * 0.75);
    expect(container?.linuxParameters?.sharedMemorySize).toBe((container?.memory ?? 0) / 2);
  });

  it('runs tasks on their instance’s network (bridge mode, no awsvpc configuration) in a deployment without subnets of their own', async () => {
    const withoutNat = createEcsCompute({ ...OPTIONS, subnets: undefined, securityGroups: undefined });
    await withoutNat.deployVersion(aVersion(), IMAGE);
    expect(input(ecs.commandCalls(RegisterTaskDefinitionCommand))[0]?.networkMode).toBe('bridge');
    expect(input(ecs.commandCalls(CreateServiceCommand))[0]?.networkConfiguration).toBeUndefined();
  });

  it('creates the service on the machine type capacity provider with the minimum replicas', async () => {
    for (const computeType of ['cpu', 'a100'] as const) {
      const version = aVersion({ computeType, minimumReplicas: 2, maximumReplicas: 5, split: 1 });
      await compute.deployVersion(version, IMAGE);
      expect(input(ecs.commandCalls(CreateServiceCommand)).at(-1)).toEqual({
        cluster: 'sluice',
        serviceName: `v-${version.id}`,
        taskDefinition: TASK_DEFINITION_ARN,
        desiredCount: 2,
        capacityProviderStrategy: [{ capacityProvider: `sluice-${computeType}-provider`, weight: 1 }],
        networkConfiguration: { awsvpcConfiguration: { subnets: ['subnet-a', 'subnet-b'], securityGroups: ['sg-workers'], assignPublicIp: 'DISABLED' } },
      });
    }
    expect(input(ecs.commandCalls(DescribeServicesCommand))[0]).toEqual({ cluster: 'sluice', services: [expect.stringMatching(/^v-/)] });
  });

  it('updates the task definition of a service that exists already', async () => {
    const version = aVersion();
    ecs.on(DescribeServicesCommand).resolves({ services: [{ serviceName: `v-${version.id}`, status: 'ACTIVE' }] });
    await compute.deployVersion(version, IMAGE);
    expect(ecs.commandCalls(CreateServiceCommand)).toHaveLength(0);
    expect(input(ecs.commandCalls(UpdateServiceCommand))).toEqual([{ cluster: 'sluice', service: `v-${version.id}`, taskDefinition: TASK_DEFINITION_ARN }]);
  });

  it('registers the scalable target between the minimum and maximum replicas', async () => {
    const version = aVersion({ minimumReplicas: 1, maximumReplicas: 4, split: 1 });
    await compute.deployVersion(version, IMAGE);
    expect(input(autoScaling.commandCalls(RegisterScalableTargetCommand))).toEqual([
      {
        ServiceNamespace: 'ecs',
        ResourceId: `service/sluice/v-${version.id}`,
        ScalableDimension: 'ecs:service:DesiredCount',
        MinCapacity: 1,
        MaxCapacity: 4,
        SuspendedState: { DynamicScalingInSuspended: true },
      },
    ]);
  });

  it('caps a version with no maximum at one task, and never below its minimum', async () => {
    await compute.deployVersion(aVersion({ minimumReplicas: 0, maximumReplicas: null, split: 1 }), IMAGE);
    await compute.deployVersion(aVersion({ minimumReplicas: 3, maximumReplicas: null, split: 1 }), IMAGE);
    expect(input(autoScaling.commandCalls(RegisterScalableTargetCommand)).map(({ MinCapacity, MaxCapacity }) => [MinCapacity, MaxCapacity])).toEqual([
      [0, 1],
      [3, 3],
    ]);
  });

  it('scales out on jobs waiting or running: a backlog alarm after one minute sets ceil(backlog / split) tasks, and never lowers a service', async () => {
    const version = aVersion({ minimumReplicas: 0, maximumReplicas: 6, split: 2 });
    await compute.deployVersion(version, IMAGE);
    const target = { ServiceNamespace: 'ecs', ResourceId: `service/sluice/v-${version.id}`, ScalableDimension: 'ecs:service:DesiredCount' };
    expect(input(autoScaling.commandCalls(RegisterScalableTargetCommand))).toEqual([
      { ...target, MinCapacity: 0, MaxCapacity: 3, SuspendedState: { DynamicScalingInSuspended: true } },
    ]);
    const [scaleOut, ...others] = input(autoScaling.commandCalls(PutScalingPolicyCommand));
    expect(others).toEqual([]);
    expect(scaleOut).toEqual({
      ...target,
      PolicyName: `v-${version.id}-scale-out`,
      PolicyType: 'StepScaling',
      StepScalingPolicyConfiguration: {
        AdjustmentType: 'ExactCapacity',
        Cooldown: 60,
        MetricAggregationType: 'Maximum',
        // Threshold 1: a backlog of 1-2 jobs is one task, 3-4 two, 5 or more three.
        StepAdjustments: [
          { MetricIntervalLowerBound: 0, MetricIntervalUpperBound: 2, ScalingAdjustment: 1 },
          { MetricIntervalLowerBound: 2, MetricIntervalUpperBound: 4, ScalingAdjustment: 2 },
          { MetricIntervalLowerBound: 4, MetricIntervalUpperBound: undefined, ScalingAdjustment: 3 },
        ],
      },
    });
    const alarms = input(cloudWatch.commandCalls(PutMetricAlarmCommand));
    expect(
      alarms.map(({ AlarmName, ComparisonOperator, Threshold, EvaluationPeriods, AlarmActions }) => ({
        AlarmName,
        ComparisonOperator,
        Threshold,
        EvaluationPeriods,
        AlarmActions,
      })),
    ).toEqual([
      {
        AlarmName: `sluice-v-${version.id}-backlog`,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Threshold: 1,
        EvaluationPeriods: 1,
        AlarmActions: ['arn:policy/scale-out'],
      },
    ]);
    const metrics = alarms[0]?.Metrics ?? [];
    expect(metrics.find((query) => query.ReturnData)?.Expression).toBe('waiting + running');
    expect(metrics.flatMap((query) => (query.MetricStat ? [query.MetricStat.Metric?.MetricName] : []))).toEqual([
      'ApproximateNumberOfMessagesVisible',
      'ApproximateNumberOfMessagesNotVisible',
    ]);
    expect(metrics.every((query) => !query.MetricStat || query.MetricStat.Metric?.Dimensions?.[0]?.Value === `sluice-v-${version.id}`)).toBe(true);
  });

  it('removes the idle alarm and scale-in policy an older deployment made, which would stop a task started for a job', async () => {
    const version = aVersion({ id: 'v1' });
    cloudWatch.on(DescribeAlarmsCommand).resolves({ MetricAlarms: [{ AlarmName: 'sluice-v-v1-idle' }] });
    autoScaling.on(DescribeScalingPoliciesCommand).resolves({ ScalingPolicies: [{ PolicyName: 'v-v1-scale-in' } as never] });
    await compute.deployVersion(version, IMAGE);
    expect(input(cloudWatch.commandCalls(DeleteAlarmsCommand))).toEqual([{ AlarmNames: ['sluice-v-v1-idle'] }]);
    expect(input(autoScaling.commandCalls(DeleteScalingPolicyCommand))).toEqual([
      { ServiceNamespace: 'ecs', ResourceId: 'service/sluice/v-v1', ScalableDimension: 'ecs:service:DesiredCount', PolicyName: 'v-v1-scale-in' },
    ]);
  });

  it('runs split replicas a task: the minimum and maximum replicas become tasks, rounded up', async () => {
    await compute.deployVersion(aVersion({ minimumReplicas: 3, maximumReplicas: 7, split: 2 }), IMAGE);
    expect(input(autoScaling.commandCalls(RegisterScalableTargetCommand)).map(({ MinCapacity, MaxCapacity }) => [MinCapacity, MaxCapacity])).toEqual([[2, 4]]);
    expect(input(ecs.commandCalls(CreateServiceCommand))[0]?.desiredCount).toBe(2);
  });

  it('fails without a DLQ, before creating anything', async () => {
    sqs.on(GetQueueAttributesCommand).resolves({ Attributes: {} });
    await expect(compute.deployVersion(aVersion(), IMAGE)).rejects.toThrow('sluice-dlq');
    expect(sqs.commandCalls(CreateQueueCommand)).toHaveLength(0);
    expect(ecs.commandCalls(CreateServiceCommand)).toHaveLength(0);
  });
});

describe('createEcsCompute: workers', () => {
  it('counts pending tasks as starting and running tasks as idle', async () => {
    ecs
      .on(DescribeServicesCommand, { cluster: 'sluice', services: ['v-version-1'] })
      .resolves({ services: [{ serviceName: 'v-version-1', status: 'ACTIVE', pendingCount: 2, runningCount: 3, desiredCount: 5 }] });
    expect(await compute.currentWorkers('version-1')).toEqual({ starting: 2, setup: 0, active: 0, idle: 3, awaiting_resources: 0 });
  });

  it('answers zeros for a missing or deleted service', async () => {
    expect(await compute.currentWorkers('version-1')).toEqual({ starting: 0, setup: 0, active: 0, idle: 0, awaiting_resources: 0 });
    ecs.on(DescribeServicesCommand).resolves({ services: [{ serviceName: 'v-version-1', status: 'INACTIVE', pendingCount: 1, runningCount: 1 }] });
    expect(await compute.currentWorkers('version-1')).toEqual({ starting: 0, setup: 0, active: 0, idle: 0, awaiting_resources: 0 });
  });

  it('describes the services of versions looked at together in batches of ten, the API’s limit', async () => {
    ecs.on(DescribeServicesCommand).callsFake(({ services }: { services: string[] }) => ({
      services: services.map((serviceName, index) => ({ serviceName, status: 'ACTIVE', pendingCount: 0, runningCount: index })),
    }));
    const versions = Array.from({ length: 12 }, (_, i) => `version-${i}`);
    const counts = await Promise.all(versions.map((id) => compute.currentWorkers(id)));
    expect(input(ecs.commandCalls(DescribeServicesCommand)).map((call) => call.services?.length)).toEqual([10, 2]);
    expect(counts.map((count) => count.idle)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1]);
  });

  it('stops nothing itself: the worker agent stops a cancelled run', () => {
    compute.stopJob('job-1');
    expect([...ecs.calls(), ...autoScaling.calls(), ...sqs.calls()]).toHaveLength(0);
  });
});

describe('createEcsCompute: stopVersion', () => {
  it('holds the version’s scaling at zero and sets its service to zero tasks, deleting nothing a redeploy needs', async () => {
    await compute.stopVersion('v1');
    expect(input(autoScaling.commandCalls(RegisterScalableTargetCommand))).toEqual([
      { ServiceNamespace: 'ecs', ResourceId: 'service/sluice/v-v1', ScalableDimension: 'ecs:service:DesiredCount', MinCapacity: 0, MaxCapacity: 0 },
    ]);
    expect(input(ecs.commandCalls(UpdateServiceCommand))).toEqual([{ cluster: 'sluice', service: 'v-v1', desiredCount: 0 }]);
    expect(ecs.calls()).toHaveLength(1);
  });
});

describe('createEcsCompute: applyReplicaBounds', () => {
  it('registers a ready version’s new bounds and its scaling steps again, touching neither its task definition nor its service', async () => {
    await compute.applyReplicaBounds(aVersion({ id: 'v1', buildStatus: 'ready', minimumReplicas: 2, maximumReplicas: 6, split: 2 }));
    expect(input(autoScaling.commandCalls(RegisterScalableTargetCommand))).toEqual([
      {
        ServiceNamespace: 'ecs',
        ResourceId: 'service/sluice/v-v1',
        ScalableDimension: 'ecs:service:DesiredCount',
        MinCapacity: 1,
        MaxCapacity: 3,
        SuspendedState: { DynamicScalingInSuspended: true },
      },
    ]);
    const steps = input(autoScaling.commandCalls(PutScalingPolicyCommand)).map(
      (policy) => policy.StepScalingPolicyConfiguration?.StepAdjustments?.at(-1)?.ScalingAdjustment,
    );
    expect(steps).toEqual([3]);
    expect(input(cloudWatch.commandCalls(PutMetricAlarmCommand)).map((alarm) => alarm.AlarmName)).toEqual(['sluice-v-v1-backlog']);
    expect(ecs.calls()).toHaveLength(0);
  });

  it('leaves a version that is not ready alone: its deploy registers the bounds it has then', async () => {
    await compute.applyReplicaBounds(aVersion({ id: 'v1', buildStatus: 'building', minimumReplicas: 2 }));
    await compute.applyReplicaBounds(aVersion({ id: 'v2', buildStatus: 'error', minimumReplicas: 2 }));
    expect([...ecs.calls(), ...autoScaling.calls(), ...cloudWatch.calls()]).toHaveLength(0);
  });
});

describe('createEcsCompute: machineTypes', () => {
  it('lists every machine type, available where the deployment has a capacity provider for it', async () => {
    const types = await compute.machineTypes();
    expect(types.map((type) => type.machineType)).toEqual([...MACHINE_TYPES]);
    expect(types.filter((type) => type.available)).toEqual([
      { machineType: 'cpu', available: true, gpus: null, emulated: false, capacityProvider: 'sluice-cpu-provider' },
      { machineType: 't4', available: true, gpus: null, emulated: false, capacityProvider: 'sluice-t4-provider' },
    ]);
  });
});
