// The worker agent of the AWS mode: the container command of every version's ECS tasks.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as wait } from 'node:timers/promises';
import { createHttpFileFetcher, INPUT_IDLE_TIMEOUT_MS } from '../../shared/adapters/httpFileFetcher.js';
import { composeAwsApp } from '../../shared/app/awsCompositionRoot.js';
import { loadAwsConfig } from '../../shared/app/awsConfig.js';
import { createLogger } from '../../shared/app/logger.js';
import { loadConfig } from '../../shared/config.js';
import { newShortId } from '../../shared/domain/ids.js';
import type { VersionRecord } from '../../shared/domain/version.js';
import { GpuInventory } from '../../shared/runtime/gpuInventory.js';
import { WorkerAgent } from '../../shared/runtime/workerAgent.js';
import { createTaskProtection } from '../../shared/adapters/aws/taskProtection.js';
import { agentCallbacks } from '../../shared/app/agentCallbacks.js';
import { logTelemetry } from '../../shared/app/logTelemetry.js';
import { LogWriter } from '../../shared/services/logWriter.js';
import { SharedIdleUsage } from '../../shared/services/sharedIdleUsage.js';
import { jobEndsRetried } from './jobEnds.js';
import { workerReplicaProcess } from './replicaProcess.js';
import { openReplicaOwnedFile } from './replicaOwnedFiles.js';
import { workerSettings } from './workerSettings.js';

/**
 * One task runs `split` replicas of one version (they share the task's GPU). ECS decides how
 * many tasks run, on the queue's depth; this agent takes jobs from the version's SQS queue,
 * runs them through the same replica pool as the local mode, and writes through the same services.
 */
const config = loadConfig();
const logger = createLogger(config);
const settings = workerSettings();
const awsConfig = loadAwsConfig();
const { services, store, queue, artifacts, clock, deploymentHealth } = composeAwsApp(config, awsConfig, logger);
const version = await store.versions.get(settings.versionId);
if (!version) throw new Error(`Version ${settings.versionId} does not exist`);
// Every task of the version runs some of its minimum replicas: their idle time is billed once.
const idleUsage = new SharedIdleUsage(services.usage, clock);

// File inputs are fetched by the agent, under the input address policy, for the replica to read.
const fetchFiles = createHttpFileFetcher({ allowed: config.inputAllow, idleTimeoutMs: INPUT_IDLE_TIMEOUT_MS, maxBytes: config.maxInputBytes });
const callbacks = agentCallbacks(services, artifacts, () => settings.publicUrl, fetchFiles);
const agent = new WorkerAgent({
  store,
  // A job's end the store refused for a while is tried again, then its message let go to come back.
  lifecycle: jobEndsRetried(services.lifecycle, (job) => queue.letGo(job.versionId, job.id)),
  queue,
  openLog: (labels) => new LogWriter(store.logs, clock, labels),
  clock,
  // ECS placed the task on a GPU of its machine type: no placement is left to do in it.
  gpus: new GpuInventory([], true),
  // Exactly `split` replicas (sharing the task's GPU), up as long as the task: ECS scales
  // tasks between the version's minimum and maximum, not this agent.
  idleTimeoutMs: 2 ** 31 - 1,
  defaultMaxReplicas: version.split,
  maxOutputBytes: config.maxOutputBytes,
  // The files a job passes to another function are kept as uploads: within the upload limit.
  maxCallFileBytes: config.maxUploadBytes,
  fixedReplicas: version.split,
  newReplicaId: () => newShortId(),
  replicaProcess: () => ({
    ...workerReplicaProcess(settings, version),
    // A file output is read only if the replica's own user wrote it.
    openOutput: settings.replicaUid === undefined ? undefined : openReplicaOwnedFile(settings.replicaUid),
  }),
  ...callbacks,
  recordIdle: (idle, seconds) => idleUsage.record(idle, seconds),
  inputsDir: join(tmpdir(), 'sluice-inputs'),
  onError: (error, context) => logger.error({ err: error }, context),
  telemetry: logTelemetry(logger),
});

const protection = createTaskProtection(process.env.ECS_AGENT_URI, (error) => logger.warn({ err: error }, 'could not set task scale-in protection'));
// The version's scale-down window, read again every minute: an edit reaches running tasks.
const windowOf = (record: VersionRecord) => record.scaledownWindowSeconds ?? awsConfig.taskScaledownWindowSeconds;
let windowSeconds = windowOf(version);
let windowReadAt = Date.now();
const refreshWindow = async () => {
  if (Date.now() - windowReadAt < 60_000) return;
  windowReadAt = Date.now();
  const latest = await store.versions.get(version.id).catch((error: unknown) => logger.warn({ err: error }, 'could not read the version’s scale-down window'));
  if (latest) windowSeconds = windowOf(latest);
};

let stopping = false;
process.once('SIGTERM', () => {
  // ECS stops a task (scale-in, a new deploy): running jobs go back to the queue, durably.
  stopping = true;
  void agent
    .shutdown()
    .then(() => idleUsage.flush())
    .catch((error: unknown) => logger.error({ err: error }, 'worker shutdown'))
    .finally(() => process.exit(0));
});

if (settings.replicaUid === undefined)
  logger.warn('SLUICE_REPLICA_UID is not set: replicas run as the agent’s user and can read its environment, credentials included');
logger.info({ versionId: version.id, replicas: version.split }, 'worker started');
// This task got as far as running its worker: the version's image is not what fails.
await deploymentHealth.workerStarted(version);
while (!stopping) {
  // SQS has no push: the pool is woken to long-poll the queue whenever its replicas are free.
  agent.wake(version.id);
  const running = agent.runningJobIds();
  // A busy task, or one idle for less than its window, is protected from scale-in: the
  // sweeper lowers the desired count as soon as the queue is empty, ECS stops only released tasks.
  await refreshWindow();
  await protection.update(running.length > 0, windowSeconds, Date.now());
  // A cancelled job's run is stopped from here: the API cannot reach into the task.
  for (const jobId of running) {
    if ((await store.jobs.get(jobId))?.status === 'cancelled') agent.stopJob(jobId);
  }
  await wait(settings.pollMs);
}
