import { ApplicationAutoScalingClient } from '@aws-sdk/client-application-auto-scaling';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { CodeBuildClient } from '@aws-sdk/client-codebuild';
import { ECSClient } from '@aws-sdk/client-ecs';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { awsRetries } from '../adapters/aws/awsRetries.js';
import { invocationDeadline } from '../adapters/aws/invocationDeadline.js';
import { createCodeBuildBuilder } from '../adapters/aws/codeBuildBuilder.js';
import { createDocumentClient, createDynamoDbStore } from '../adapters/aws/dynamodb/dynamoDbStore.js';
import { createEcsCompute } from '../adapters/aws/ecsCompute.js';
import { createPollingJobEvents } from '../adapters/aws/pollingJobEvents.js';
import { unpublishedLogs } from '../adapters/aws/unpublishedLogs.js';
import { createS3Artifacts } from '../adapters/aws/s3Artifacts.js';
import { createS3Spill } from '../adapters/aws/s3Spill.js';
import { dynamoDbJobLeases } from '../adapters/aws/dynamodb/jobLeases.js';
import { createQueueUrlResolver, createSqsJobQueue, type SqsJobQueue } from '../adapters/aws/sqsJobQueue.js';
import { createStepFunctionsScheduler } from '../adapters/aws/stepFunctionsScheduler.js';
import { createInlineFirstAttemptScheduler, FIRST_ATTEMPT_TIMEOUT_MS } from '../adapters/aws/inlineFirstAttempt.js';
import { dnsResolver } from '../adapters/dnsResolver.js';
import { createHttpWebhookSender } from '../adapters/httpWebhookSender.js';
import { createSystemClock } from '../adapters/systemClock.js';
import type { Config } from '../config.js';
import type { MachineType } from '../domain/machineTypes.js';
import type { Artifacts } from '../ports/artifacts.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { DeploymentHealth } from '../services/deploymentHealth.js';
import type { Services } from '../services/services.js';
import { createServices } from '../services/services.js';
import type { AwsConfig } from './awsConfig.js';
import type { Logger } from './logger.js';
import { logTelemetry } from './logTelemetry.js';
import { checkBundle } from '../packaging/bundleReader.js';

/** The Python version a function gets when it names none (the build image's default). */
const DEFAULT_PYTHON_VERSION = '3.11';

export interface AwsApp {
  services: Services;
  compute: ReturnType<typeof createEcsCompute>;
  /** Whether ready versions' tasks can start (ECS task events, workers starting). */
  deploymentHealth: DeploymentHealth;
  /** For the worker agent, which drives jobs through these directly. */
  store: Store;
  queue: SqsJobQueue;
  artifacts: Artifacts;
  clock: Clock;
}

/**
 * The AWS mode's composition root: the same services as the local mode, over DynamoDB, SQS,
 * S3, Step Functions, CodeBuild and ECS. Lambdas and worker tasks build it once per container.
 */
export function composeAwsApp(config: Config, aws: AwsConfig, logger: Logger): AwsApp {
  const clock = createSystemClock();
  // Inside a Lambda invocation, AWS calls stop retrying before it must answer (InvocationDeadline).
  const deadline = () => invocationDeadline.get();
  const s3 = new S3Client({ region: aws.region, ...awsRetries(deadline) });
  // Inputs, outputs, errors and webhook payloads too large for an item go to the bucket's spill/.
  const documents = createDocumentClient(new DynamoDBClient(awsRetries(deadline)));
  const store = createDynamoDbStore({ client: documents, tablePrefix: config.tablePrefix, spill: createS3Spill({ client: s3, bucket: aws.bucket }) });
  const sqs = new SQSClient({ region: aws.region, ...awsRetries(deadline) });
  const queueUrlOf = createQueueUrlResolver({ client: sqs, prefix: config.tablePrefix });
  const queue = createSqsJobQueue({
    client: sqs,
    queueUrlOf,
    visibilityTimeoutSeconds: aws.queueVisibilitySeconds,
    heartbeatSeconds: Math.max(1, Math.floor(aws.queueVisibilitySeconds / 3)),
    maxVisibilitySeconds: aws.queueMaxVisibilitySeconds,
    leases: dynamoDbJobLeases(documents, config.tablePrefix),
    // The operator's weights (services/budgets.ts), read by the time a batch is received.
    weightOf: (organizationId) => services.budgets.weightOf(organizationId),
    // The queue's alarm would start a task only minutes later: an idle version is woken now.
    onEnqueued: (versionId) =>
      compute.wake(versionId).catch((error: unknown) => logger.warn({ err: error, versionId }, 'could not wake the version’s tasks; its queue alarm will')),
  });
  const compute = createEcsCompute({
    ecs: new ECSClient({ region: aws.region, ...awsRetries(deadline) }),
    autoScaling: new ApplicationAutoScalingClient({ region: aws.region, ...awsRetries(deadline) }),
    cloudWatch: new CloudWatchClient({ region: aws.region, ...awsRetries(deadline) }),
    sqs,
    cluster: aws.cluster,
    queuePrefix: config.tablePrefix,
    queueUrlOf,
    executionRoleArn: aws.executionRoleArn,
    taskRoleArn: aws.taskRoleArn,
    logGroup: aws.logGroup,
    region: aws.region,
    // None (a deployment without NAT): tasks share their instance's network.
    subnets: aws.subnets.length > 0 ? aws.subnets : undefined,
    securityGroups: aws.securityGroups,
    capacityProviderOf: (machineType) => aws.capacityProviders[machineType] ?? `${config.tablePrefix}${machineType}`,
    machineTypes: Object.keys(aws.capacityProviders) as MachineType[],
    environment: {
      SLUICE_MODE: 'aws',
      SLUICE_TABLE_PREFIX: config.tablePrefix,
      SLUICE_BUCKET: aws.bucket,
      SLUICE_STATE_MACHINE_ARN: aws.stateMachineArn,
      // A child job a worker pushes to an idle version wakes that version's service, as a push does.
      SLUICE_CLUSTER: aws.cluster,
      SLUICE_PUBLIC_URL: aws.publicUrl,
      // A worker makes the first attempt of its jobs' webhooks: by the same rules as the deliver Lambda.
      SLUICE_WEBHOOK_ALLOW: config.webhookAllow.join(','),
      SLUICE_WEBHOOK_RETRY_BASE_MS: String(config.webhookRetryBaseMs),
      SLUICE_WEBHOOK_TIMEOUT_S: String(config.webhookTimeoutMs / 1000),
      SLUICE_MAX_OUTPUT_MB: String(config.maxOutputBytes / 1024 / 1024),
      SLUICE_TASK_SCALEDOWN_WINDOW_S: String(aws.taskScaledownWindowSeconds),
    },
  });
  const artifacts = createS3Artifacts({ client: s3, bucket: aws.bucket, fileUrlExpiresS: config.fileUrlExpiresS });
  const services = createServices({
    store,
    artifacts,
    builder: createCodeBuildBuilder({
      client: new CodeBuildClient({ region: aws.region, ...awsRetries(deadline) }),
      projectName: aws.codeBuildProject,
      store,
      clock,
      bucket: aws.bucket,
      repositoryUri: aws.repositoryUri,
      onError: (error, versionId) => logger.error({ err: error, versionId }, 'starting a build failed; the sweeper starts it again'),
    }),
    clock,
    queue,
    events: createPollingJobEvents(store),
    // Lines are written in ECS tasks, out of a Lambda's reach: streams read the store every second.
    logFeed: unpublishedLogs,
    streamPollMs: 1000,
    compute: () => compute,
    deliveryScheduler: (attempts) => {
      const onError = (error: unknown, deliveryId: string) =>
        logger.error({ err: error, deliveryId }, 'could not attempt or start a webhook delivery here; a run takes it, or else the sweeper');
      const runs = createStepFunctionsScheduler({
        client: new SFNClient({ region: aws.region, ...awsRetries(deadline) }),
        stateMachineArn: aws.stateMachineArn,
        onError,
      });
      const timeoutMs = Math.min(FIRST_ATTEMPT_TIMEOUT_MS, config.webhookTimeoutMs);
      return createInlineFirstAttemptScheduler({ runs, attempts, clock, timeoutMs, onError });
    },
    webhookSender: createHttpWebhookSender({ allowed: config.webhookAllow, timeoutMs: config.webhookTimeoutMs }),
    resolveHost: dnsResolver,
    defaultPythonVersion: DEFAULT_PYTHON_VERSION,
    maxUploadBytes: config.maxUploadBytes,
    checkBundle: (bundle) => checkBundle(bundle, config.bundleLimits),
    awaitTimeoutMs: config.awaitTimeoutMs,
    // SQS says no depth cheaply (the port's 0): on AWS the queue takes every push (docs/deploying-to-aws.md).
    maxQueuedPerVersion: config.maxQueuedPerVersion,
    webhookAllow: config.webhookAllow,
    webhookRetryBaseMs: config.webhookRetryBaseMs,
    pricing: config.pricing,
    operatorToken: config.operatorToken,
    onObserverError: (error, event) => logger.error({ err: error, jobId: event.job.id, event: event.type }, 'job observer failed'),
    // CloudWatch Logs takes the lines; the metrics are CloudWatch's own (docs/self-hosting.md, "Metrics").
    telemetry: logTelemetry(logger),
  });
  const deploymentHealth = new DeploymentHealth(store, clock, {
    stopTasks: (versionId) => compute.stopVersion(versionId),
    onFailed: (version) => services.jobPushes.releaseWaitingJobs(version),
  });
  return { services, compute, deploymentHealth, store, queue, artifacts, clock };
}
