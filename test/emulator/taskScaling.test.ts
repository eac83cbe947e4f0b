import { DescribeScalableTargetsCommand } from '@aws-sdk/client-application-auto-scaling';
import { DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import {
  CreateClusterCommand,
  CreateServiceCommand,
  DescribeServicesCommand,
  RegisterTaskDefinitionCommand,
  UpdateServiceCommand,
  type Service,
} from '@aws-sdk/client-ecs';
import { CreateQueueCommand, PurgeQueueCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AutoScalingEmulator } from '../../emulator/autoScaling.js';
import { awsClients, type AwsClients } from '../../emulator/awsClients.js';
import { startMoto, type MotoServer } from '../../emulator/moto.js';
import { putQueueScaling, stopQueueScaling } from '../../shared/adapters/aws/queueScaling.js';
import { createTaskScaling, tasksWanted } from '../../shared/adapters/aws/taskScaling.js';
import type { VersionRecord } from '../../shared/domain/version.js';
import { aVersion } from '../support/fixtures.js';

const CLUSTER = 'spec';

/**
 * Scaling that does not wait for CloudWatch (shared/adapters/aws/taskScaling.ts), against moto's
 * ECS, SQS and Application Auto Scaling: a job queued on an idle version starts a task at once,
 * and the sweeper sets services to their queue's depth. ECS's running and pending counts are
 * the spec's (moto reports every desired task as running), everything else is moto's.
 */
describe('scaling worker tasks on the queue, without metric alarms', () => {
  let moto: MotoServer;
  let clients: AwsClients;
  let version: VersionRecord;
  let queueUrl: string;
  /** What DescribeServices says of tasks running and starting, as ECS would; null: moto's answer. */
  let counts: { runningCount: number; pendingCount: number } | null;
  let describes: number;

  beforeAll(async () => {
    moto = await startMoto();
    clients = awsClients(moto.endpoint, 'http://127.0.0.1:9');
  }, 60_000);
  afterAll(() => moto?.close());

  const service = () => `v-${version.id}`;
  const desired = async () => (await clients.ecs.send(new DescribeServicesCommand({ cluster: CLUSTER, services: [service()] }))).services?.[0]?.desiredCount;
  const setDesired = (desiredCount: number) => clients.ecs.send(new UpdateServiceCommand({ cluster: CLUSTER, service: service(), desiredCount }));
  const scaling = () =>
    createTaskScaling({
      ecs: clients.ecs,
      autoScaling: clients.autoScaling,
      sqs: clients.sqs,
      cluster: CLUSTER,
      describe: async (name) => {
        describes += 1;
        const found = (await clients.ecs.send(new DescribeServicesCommand({ cluster: CLUSTER, services: [name] }))).services?.[0] ?? null;
        return found && counts ? ({ ...found, ...counts } as Service) : found;
      },
      queueUrlOf: async () => queueUrl,
    });
  const queueJobs = async (count: number) => {
    for (let index = 0; index < count; index++) await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: `{"jobId":"job-${index}"}` }));
  };

  beforeEach(async () => {
    await fetch(`${moto.endpoint}/moto-api/reset`, { method: 'POST' });
    version = aVersion({ buildStatus: 'ready', minimumReplicas: 0, maximumReplicas: 6, split: 2 });
    counts = null;
    describes = 0;
    ({ QueueUrl: queueUrl = '' } = await clients.sqs.send(new CreateQueueCommand({ QueueName: `sluice-v-${version.id}` })));
    await clients.ecs.send(new CreateClusterCommand({ clusterName: CLUSTER }));
    await clients.ecs.send(new RegisterTaskDefinitionCommand({ family: 'spec', containerDefinitions: [{ name: 'worker', image: 'worker', memory: 512 }] }));
    await clients.ecs.send(new CreateServiceCommand({ cluster: CLUSTER, serviceName: service(), taskDefinition: 'spec', desiredCount: 0 }));
    await putQueueScaling({ autoScaling: clients.autoScaling, cloudWatch: clients.cloudWatch, cluster: CLUSTER }, version, service(), `sluice-v-${version.id}`);
  });

  it('starts a task for the first job queued on an idle version at once, without waiting for an alarm', async () => {
    await queueJobs(1);
    await scaling().wake(version.id);
    expect(await desired()).toBe(1);
  });

  it('asks ECS once per version for ten seconds of pushes, however many jobs are queued', async () => {
    const scaler = scaling();
    for (let push = 0; push < 20; push++) await scaler.wake(version.id);
    expect(describes).toBe(1);
  });

  it('leaves a version held at zero (its tasks cannot start) at zero', async () => {
    await stopQueueScaling({ autoScaling: clients.autoScaling, cloudWatch: clients.cloudWatch, cluster: CLUSTER }, service());
    await scaling().wake(version.id);
    expect(await desired()).toBe(0);
  });

  it('registers the queue alarm’s scaling with scale-in suspended: only the sweeper lowers a service', async () => {
    const { ScalableTargets = [] } = await clients.autoScaling.send(
      new DescribeScalableTargetsCommand({ ServiceNamespace: 'ecs', ResourceIds: [`service/${CLUSTER}/${service()}`] }),
    );
    expect(ScalableTargets[0]?.SuspendedState?.DynamicScalingInSuspended).toBe(true);
  });

  it('keeps the queue alarm from lowering a service: its step policy only raises', async () => {
    await setDesired(3);
    await queueJobs(1);
    let clock = Date.now();
    const emulator = new AutoScalingEmulator({
      clients,
      queuePrefix: 'sluice-',
      timeScale: 1,
      sqsMetricTimes: { delaySeconds: 0, idleSeconds: 6 * 3600, wakeSeconds: 0 },
      now: () => clock,
      onEvent: () => undefined,
      onScaled: () => undefined,
    });
    emulator.queueAccessed(`sluice-v-${version.id}`);
    // A backlog of one job: the alarm's policy asks for ExactCapacity 1, and the service keeps its three.
    for (let minute = 0; minute < 3; minute++) {
      clock += 60_000;
      await emulator.tick();
    }
    const { MetricAlarms = [] } = await clients.cloudWatch.send(new DescribeAlarmsCommand({ AlarmNames: [`sluice-v-${version.id}-backlog`] }));
    expect(MetricAlarms[0]?.StateValue).toBe('ALARM');
    expect(await desired()).toBe(3);
  });

  it('sets an awake service to its queue’s depth: a task for every split jobs waiting or running, plus the buffer', async () => {
    await setDesired(1);
    await queueJobs(5);
    const report = await scaling().settle([version]);
    expect(report).toEqual({ scaled: [{ service: service(), from: 1, to: 3 }], failures: [] });
    expect(await desired()).toBe(3);
    expect(tasksWanted({ ...version, bufferReplicas: 2 }, 5)).toBe(3);
    expect(tasksWanted({ ...version, bufferReplicas: 2 }, 1)).toBe(2);
    expect(tasksWanted({ ...version, bufferReplicas: 2 }, 0)).toBe(0);
  });

  it('lowers a service to its minimum once its queue is empty, leaving ECS to stop only tasks past their window', async () => {
    version = { ...version, minimumReplicas: 2 };
    await setDesired(3);
    counts = { runningCount: 3, pendingCount: 0 };
    expect((await scaling().settle([version])).scaled).toEqual([{ service: service(), from: 3, to: 1 }]);
    expect(await desired()).toBe(1);
  });

  it('lowers nothing while a task is starting: one started for a job has not taken it yet', async () => {
    await setDesired(1);
    await queueJobs(1);
    await clients.sqs.send(new PurgeQueueCommand({ QueueUrl: queueUrl }));
    counts = { runningCount: 0, pendingCount: 1 };
    expect((await scaling().settle([version])).scaled).toEqual([]);
    counts = { runningCount: 0, pendingCount: 0 };
    expect((await scaling().settle([version])).scaled).toEqual([]);
    expect(await desired()).toBe(1);
  });

  it('leaves an asleep service to the next push, and versions not ready alone', async () => {
    await queueJobs(2);
    counts = { runningCount: 0, pendingCount: 0 };
    expect((await scaling().settle([version, { ...version, buildStatus: 'error' }])).scaled).toEqual([]);
    expect(await desired()).toBe(0);
  });
});
