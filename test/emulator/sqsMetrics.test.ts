import { DescribeAlarmsCommand, GetMetricStatisticsCommand } from '@aws-sdk/client-cloudwatch';
import { CreateClusterCommand, CreateServiceCommand, DescribeServicesCommand, RegisterTaskDefinitionCommand } from '@aws-sdk/client-ecs';
import { CreateQueueCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { awsClients, type AwsClients } from '../../emulator/awsClients.js';
import { AutoScalingEmulator } from '../../emulator/autoScaling.js';
import { startMoto, type MotoServer } from '../../emulator/moto.js';
import type { SqsMetricTimes } from '../../emulator/sqsMetrics.js';
import { putQueueScaling } from '../../shared/adapters/aws/queueScaling.js';
import type { VersionRecord } from '../../shared/domain/version.js';

const MINUTE = 60_000;
const QUEUE = 'sluice-spec-version';
const SERVICE = 'spec-service';

/**
 * SQS's metrics as the emulation publishes them to CloudWatch (moto), read by the product's own
 * scaling alarms (shared/adapters/aws/queueScaling.ts) on a version scaled from zero: a
 * minute's datapoint arrives late, and an inactive queue has none. Time scale 1 on a clock the
 * spec steps a minute per tick, so the minutes are AWS's own.
 */
describe('the emulated SQS metrics behind the scaling alarms', () => {
  let moto: MotoServer;
  let clients: AwsClients;
  let queueUrl: string;
  let clock: number;

  beforeAll(async () => {
    moto = await startMoto();
    clients = awsClients(moto.endpoint, 'http://127.0.0.1:9');
  }, 60_000);
  afterAll(() => moto?.close());

  beforeEach(async () => {
    await fetch(`${moto.endpoint}/moto-api/reset`, { method: 'POST' });
    clock = Date.now() - 12 * 60 * MINUTE;
    ({ QueueUrl: queueUrl = '' } = await clients.sqs.send(new CreateQueueCommand({ QueueName: QUEUE })));
    await clients.ecs.send(new CreateClusterCommand({ clusterName: 'spec' }));
    await clients.ecs.send(new RegisterTaskDefinitionCommand({ family: 'spec', containerDefinitions: [{ name: 'worker', image: 'worker', memory: 512 }] }));
    await clients.ecs.send(new CreateServiceCommand({ cluster: 'spec', serviceName: SERVICE, taskDefinition: 'spec', desiredCount: 0 }));
    const version = { minimumReplicas: 0, maximumReplicas: 1, split: 1 } as VersionRecord;
    await putQueueScaling({ autoScaling: clients.autoScaling, cloudWatch: clients.cloudWatch, cluster: 'spec' }, version, SERVICE, QUEUE);
  });

  const emulator = (times: SqsMetricTimes) =>
    new AutoScalingEmulator({
      clients,
      queuePrefix: 'sluice-',
      timeScale: 1,
      sqsMetricTimes: times,
      now: () => clock,
      onEvent: () => undefined,
      onScaled: () => undefined,
    });
  const minutePasses = async (scaling: AutoScalingEmulator) => {
    clock += MINUTE;
    await scaling.tick();
  };
  const datapoints = async () => {
    const { Datapoints = [] } = await clients.cloudWatch.send(
      new GetMetricStatisticsCommand({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: QUEUE }],
        StartTime: new Date(clock - 60 * MINUTE),
        EndTime: new Date(clock + MINUTE),
        Period: 60,
        Statistics: ['Maximum'],
      }),
    );
    return Datapoints.map((point) => ({ at: point.Timestamp?.getTime() ?? 0, value: point.Maximum }));
  };
  const backlogAlarm = async () =>
    (await clients.cloudWatch.send(new DescribeAlarmsCommand({ AlarmNames: [`${QUEUE}-backlog`] }))).MetricAlarms?.[0]?.StateValue;
  const desiredCount = async () => (await clients.ecs.send(new DescribeServicesCommand({ cluster: 'spec', services: [SERVICE] }))).services?.[0]?.desiredCount;
  const push = async (scaling: AutoScalingEmulator) => {
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'job' }));
    // What awsLocal does on seeing the product's SendMessage pass through.
    scaling.queueAccessed(queueUrl);
  };

  it('puts a minute’s datapoint in CloudWatch only once the delay has passed, stamped with the minute it measures', async () => {
    const scaling = emulator({ delaySeconds: 120, idleSeconds: 6 * 3600, wakeSeconds: 900 });
    await push(scaling);
    await minutePasses(scaling);
    const measuredAt = clock;
    expect(await datapoints()).toEqual([]);
    expect(await backlogAlarm()).toBe('OK');
    await minutePasses(scaling);
    expect(await datapoints()).toEqual([]);
    expect(await desiredCount()).toBe(0);

    await minutePasses(scaling);
    expect((await datapoints()).map((point) => point.value)).toEqual([1]);
    expect((await datapoints())[0]?.at).toBeLessThanOrEqual(measuredAt);
    expect(await backlogAlarm()).toBe('ALARM');
    expect(await desiredCount()).toBe(1);
  });

  it('publishes nothing for a queue idle past the idle time, so the first push leaves the backlog alarm OK until SQS publishes again', async () => {
    const scaling = emulator({ delaySeconds: 60, idleSeconds: 10 * 60, wakeSeconds: 5 * 60 });
    for (let minute = 0; minute < 12; minute += 1) await minutePasses(scaling);
    const before = await datapoints();
    const asleepAt = clock - 2 * MINUTE;
    expect(before.length).toBeGreaterThan(0);
    await minutePasses(scaling);
    await minutePasses(scaling);
    // Asleep: nothing measured since the queue went inactive.
    expect((await datapoints()).filter((point) => point.at > asleepAt)).toEqual([]);

    await push(scaling);
    const pushedAt = clock;
    // Waking: five minutes with no datapoint; the backlog alarm treats that as not breaching.
    for (let minute = 0; minute < 5; minute += 1) {
      await minutePasses(scaling);
      expect((await datapoints()).filter((point) => point.at > pushedAt)).toEqual([]);
      expect(await backlogAlarm()).toBe('OK');
      expect(await desiredCount()).toBe(0);
    }
    // Then the first datapoint, a minute late: the version scales from zero.
    await minutePasses(scaling);
    expect((await datapoints()).filter((point) => point.at > pushedAt).map((point) => point.value)).toEqual([1]);
    expect(await backlogAlarm()).toBe('ALARM');
    expect(await desiredCount()).toBe(1);
  });
});
