import type { ApplicationAutoScalingClient } from '@aws-sdk/client-application-auto-scaling';
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { putQueueScaling, stopQueueScaling, taskBounds } from './queueScaling.js';
import { CreateServiceCommand, DescribeServicesCommand, RegisterTaskDefinitionCommand, UpdateServiceCommand, type ECSClient } from '@aws-sdk/client-ecs';
import { CreateQueueCommand, GetQueueAttributesCommand, GetQueueUrlCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { isGpuMachine, MACHINE_TYPES, type MachineType } from '../../domain/machineTypes.js';
import type { VersionRecord } from '../../domain/version.js';
import { NO_WORKERS } from '../../domain/wire/common.js';
import type { Compute } from '../../ports/compute.js';
import { createServiceDescriber } from './serviceDescriber.js';
import { queueNameOf } from './sqsJobQueue.js';
import { createTaskScaling, type TaskScaling } from './taskScaling.js';
import { serviceNameOf } from './taskStateChange.js';
import { workerContainerSecurity } from './workerContainerSecurity.js';
import { workerContainerLimits } from './workerContainerLimits.js';

export interface EcsComputeOptions {
  ecs: ECSClient;
  autoScaling: ApplicationAutoScalingClient;
  /** The scaling alarms on the queue's depth. */
  cloudWatch: CloudWatchClient;
  sqs: SQSClient;
  cluster: string;
  /** The prefix of the versions' queue names and of the DLQ, `<prefix>dlq`. */
  queuePrefix: string;
  /** A version's queue URL, resolved once per version (the queue adapter's resolver, shared). */
  queueUrlOf: (versionId: string) => Promise<string>;
  executionRoleArn: string;
  taskRoleArn: string;
  logGroup: string;
  region: string;
  /** The cluster's capacity provider (an Auto Scaling group of instances) for a machine type. */
  capacityProviderOf: (machineType: MachineType) => string;
  /** The machine types the deployment has capacity for (SLUICE_CAPACITY_PROVIDERS): what it can run. */
  machineTypes: readonly MachineType[];
  /** Given to every worker (table names, bucket, ...). */
  environment: Record<string, string>;
  /**
   * Where tasks get their own network interface (awsvpc). Without them tasks share their
   * instance's network (bridge mode), as in a deployment without a NAT (`sluice:natGateways=0`).
   */
  subnets?: string[];
  securityGroups?: string[];
}

export interface EcsCompute extends Compute, TaskScaling {
  /** Creates (or updates) the version's queue, task definition, service and scaling. */
  deployVersion(version: VersionRecord, imageUri: string): Promise<void>;
  /** Runs no more tasks of the version (its tasks cannot start): scaling held at zero, the service at zero. */
  stopVersion(versionId: string): Promise<void>;
}

/** Kept in step with the SQS queue adapter's default lease, which its heartbeat extends. */
const VISIBILITY_TIMEOUT_SECONDS = '60';
/** Deliveries before a message goes to the DLQ (the job lifecycle gives up after fewer attempts). */
const MAX_RECEIVE_COUNT = 5;
/** SQS's longest retention, as the DLQ's: a job waiting for a task never loses its message before the store gives up on it. */
const MESSAGE_RETENTION_SECONDS = '1209600';

/**
 * Each version is an ECS service on its machine type's capacity provider, fed by its own SQS
 * queue and scaled by Application Auto Scaling between minimum and maximum replicas.
 */
export function createEcsCompute(options: EcsComputeOptions): EcsCompute {
  const { ecs, autoScaling, sqs, cluster, queuePrefix } = options;

  const deadLetterArn = async () => {
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: `${queuePrefix}dlq` }));
    const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
    if (!Attributes?.QueueArn) throw new Error(`The dead-letter queue ${queuePrefix}dlq has no ARN`);
    return Attributes.QueueArn;
  };

  const registerTaskDefinition = async (version: VersionRecord, imageUri: string) => {
    const environment = { ...options.environment, SLUICE_MODE: 'aws', SLUICE_VERSION_ID: version.id };
    const limits = workerContainerLimits(version.computeType);
    const { capabilities, dockerSecurityOptions } = workerContainerSecurity();
    const { taskDefinition } = await ecs.send(
      new RegisterTaskDefinitionCommand({
        // Under the deployment's prefix, like its queues: two deployments in one account keep apart.
        family: `${queuePrefix}${version.id}`,
        requiresCompatibilities: ['EC2'],
        networkMode: options.subnets ? 'awsvpc' : 'bridge',
        executionRoleArn: options.executionRoleArn,
        taskRoleArn: options.taskRoleArn,
        containerDefinitions: [
          {
            name: 'worker',
            image: imageUri,
            essential: true,
            ...limits,
            linuxParameters: { ...limits.linuxParameters, capabilities },
            dockerSecurityOptions,
            environment: Object.entries(environment).map(([name, value]) => ({ name, value })),
            logConfiguration: {
              logDriver: 'awslogs',
              options: { 'awslogs-group': options.logGroup, 'awslogs-region': options.region, 'awslogs-stream-prefix': serviceNameOf(version.id) },
            },
            // One GPU per task: the worker inside runs `split` replicas that share it.
            resourceRequirements: isGpuMachine(version.computeType) ? [{ type: 'GPU', value: '1' }] : undefined,
          },
        ],
      }),
    );
    if (!taskDefinition?.taskDefinitionArn) throw new Error(`ECS registered no task definition for version ${version.id}`);
    return taskDefinition.taskDefinitionArn;
  };

  const describe = createServiceDescriber(async (names) => (await ecs.send(new DescribeServicesCommand({ cluster, services: names }))).services ?? []);
  const describeService = (versionId: string) => describe(serviceNameOf(versionId));
  const scaling = createTaskScaling({ ecs, autoScaling, sqs, cluster, describe, queueUrlOf: options.queueUrlOf });

  return {
    wake: scaling.wake,
    settle: scaling.settle,

    async deployVersion(version, imageUri) {
      const queueName = queueNameOf(queuePrefix, version.id);
      const redrivePolicy = JSON.stringify({ deadLetterTargetArn: await deadLetterArn(), maxReceiveCount: MAX_RECEIVE_COUNT });
      await sqs.send(
        new CreateQueueCommand({
          QueueName: queueName,
          Attributes: { VisibilityTimeout: VISIBILITY_TIMEOUT_SECONDS, MessageRetentionPeriod: MESSAGE_RETENTION_SECONDS, RedrivePolicy: redrivePolicy },
        }),
      );

      const taskDefinition = await registerTaskDefinition(version, imageUri);
      const serviceName = serviceNameOf(version.id);
      if (await describeService(version.id)) {
        // A repeated deploy: the desired count belongs to the scaling policy now.
        await ecs.send(new UpdateServiceCommand({ cluster, service: serviceName, taskDefinition }));
      } else {
        await ecs.send(
          new CreateServiceCommand({
            cluster,
            serviceName,
            taskDefinition,
            desiredCount: taskBounds(version).min,
            capacityProviderStrategy: [{ capacityProvider: options.capacityProviderOf(version.computeType), weight: 1 }],
            networkConfiguration: options.subnets
              ? { awsvpcConfiguration: { subnets: options.subnets, securityGroups: options.securityGroups, assignPublicIp: 'DISABLED' } }
              : undefined,
          }),
        );
      }

      await putQueueScaling({ autoScaling, cloudWatch: options.cloudWatch, cluster }, version, serviceName, queueName);
    },

    async stopVersion(versionId) {
      const serviceName = serviceNameOf(versionId);
      await stopQueueScaling({ autoScaling, cloudWatch: options.cloudWatch, cluster }, serviceName);
      await ecs.send(new UpdateServiceCommand({ cluster, service: serviceName, desiredCount: 0 }));
    },

    async applyReplicaBounds(version) {
      // A version not ready yet gets its bounds when deployed; one ended in error stays at zero.
      if (version.buildStatus !== 'ready') return;
      await putQueueScaling({ autoScaling, cloudWatch: options.cloudWatch, cluster }, version, serviceNameOf(version.id), queueNameOf(queuePrefix, version.id));
    },

    async machineTypes() {
      return MACHINE_TYPES.map((machineType) => {
        const configured = options.machineTypes.includes(machineType);
        return {
          machineType,
          available: configured,
          gpus: null,
          emulated: false,
          capacityProvider: configured ? options.capacityProviderOf(machineType) : null,
        };
      });
    },

    async currentWorkers(versionId) {
      const service = await describeService(versionId);
      if (!service) return { ...NO_WORKERS };
      // ECS knows tasks starting and running, not whether a running task is busy: running ones count as idle.
      return { ...NO_WORKERS, starting: service.pendingCount ?? 0, idle: service.runningCount ?? 0 };
    },

    stopJob() {
      // Nothing to do here: the worker agent in the task watches its job's status and stops a
      // run that was cancelled itself.
    },
  };
}
