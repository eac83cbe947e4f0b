import { rm, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalBuilder } from '../adapters/local/build/localBuilder.js';
import { PythonEnvironments } from '../adapters/local/build/pythonEnvironments.js';
import { probe } from '../adapters/local/build/pythonInterpreters.js';
import { createFileArtifacts, openOutputFile } from '../adapters/local/fileArtifacts.js';
import { LocalUploads } from '../adapters/local/localUploads.js';
import type { SandboxChoice } from '../adapters/local/sandbox/chooseSandbox.js';
import { chooseSandbox } from '../adapters/local/sandbox/chooseSandbox.js';
import { LocalDownloads } from '../adapters/local/localDownloads.js';
import { loadUrlSigningSecret } from '../adapters/local/urlSigningSecret.js';
import { createSystemClock } from '../adapters/systemClock.js';
import type { Config } from '../config.js';
import type { MemoryJobEvents } from '../adapters/local/memoryJobEvents.js';
import { ConfigError } from '../config.js';
import { createMemoryJobEvents } from '../adapters/local/memoryJobEvents.js';
import type { MemoryLogFeed } from '../adapters/local/memoryLogFeed.js';
import { createMemoryLogFeed } from '../adapters/local/memoryLogFeed.js';
import { withPublishedLogs } from '../adapters/local/publishedLogs.js';
import { MemoryJobQueue } from '../adapters/local/memoryJobQueue.js';
import { LocalDeliveryScheduler } from '../adapters/local/localDeliveryScheduler.js';
import { dnsResolver } from '../adapters/dnsResolver.js';
import { createHttpWebhookSender } from '../adapters/httpWebhookSender.js';
import type { WorkerAgent } from '../runtime/workerAgent.js';
import { prepareLocalCompute } from './localCompute.js';
import { openLocalStore } from './openStore.js';
import type { Store } from '../ports/store.js';
import { RetentionSweeper } from '../adapters/local/retentionSweeper.js';
import type { Services } from '../services/services.js';
import { createServices } from '../services/services.js';
import { LogWriter } from '../services/logWriter.js';
import { StartDeadlines } from '../services/startDeadlines.js';
import type { OpenLogLines } from '../ports/logLines.js';
import type { Logger } from './logger.js';
import { checkBundle } from '../packaging/bundleReader.js';
import { telemetryOf } from '../ports/telemetry.js';
import { ServiceMetrics } from '../services/serviceMetrics.js';
import type { RawEndpoint } from '../http/nodeGateway.js';
import { metricsEndpoint } from '../http/metricsEndpoint.js';
import { logTelemetry } from './logTelemetry.js';

export interface LocalApp {
  services: Services;
  builder: LocalBuilder;
  /** The upload URLs' receiver, which the gateway serves beside the route table. */
  uploads: LocalUploads;
  /** The output files' download URLs, served beside them. */
  downloads: LocalDownloads;
  /** GET /metrics, served beside them. */
  metrics: RawEndpoint;
  agent: WorkerAgent;
  /** How function code is confined; its warning, when it is not, is for the start banner too. */
  sandbox: SandboxChoice;
  /** The in-process events that wake awaits and event streams (their listener counts show what is followed). */
  jobEvents: MemoryJobEvents;
  logFeed: MemoryLogFeed;
  /** The store the services use (specs write history into it as the agent would). */
  store: Store;
  /** Resumes what a stopped service left: unfinished builds, queued and interrupted jobs. */
  recover(): Promise<void>;
  /** Stops; running jobs have `graceMs` to finish before they are preempted (back to the queue). */
  close(graceMs?: number): Promise<void>;
}

/**
 * The one place adapters are chosen and services built. The local mode: SQLite in the data
 * directory, bundles and environments beside it, builds in this process.
 */
export async function composeLocalApp(
  config: Config,
  logger: Logger,
  publicUrl: () => string = () => `http://${config.host}:${config.port}`,
): Promise<LocalApp> {
  if (config.mode !== 'local') {
    throw new Error('This command runs the local mode. The AWS mode is deployed with `cdk deploy` (see docs/deploying-to-aws.md).');
  }
  // Every build and the inspector run it: a wrong one is said at start, not at the first deploy.
  const defaultPython = await probe(config.python);
  if (!defaultPython)
    throw new ConfigError(`SLUICE_PYTHON: ${config.python} does not run as a Python interpreter: set it to one that does (python3, /usr/bin/python3.12, ...)`);
  for (const interpreter of config.pythonInterpreters) {
    if (!(await probe(interpreter)))
      throw new ConfigError(
        `SLUICE_PYTHON_INTERPRETERS: ${interpreter} does not run as a Python interpreter: name interpreters that do (/opt/python3.8/bin/python3.8, ...)`,
      );
  }
  const sandbox = await chooseSandbox(config.sandbox);
  if (sandbox.warning) logger.warn({ sandbox: config.sandbox }, sandbox.warning);
  else logger.info('function code runs in a bubblewrap sandbox');
  // Scratch folders of replicas and builds of an earlier run are left over only after a crash.
  const scratchFolder = join(config.dataDir, 'scratch');
  await rm(scratchFolder, { recursive: true, force: true });
  const logFeed = createMemoryLogFeed();
  const jobEvents = createMemoryJobEvents();
  const localStore = openLocalStore(config, (error) =>
    logger.error({ err: error }, 'the WAL checkpoint thread stopped; SQLite checkpoints on the event loop from now on'),
  );
  const store = withPublishedLogs(localStore, logFeed);
  const clock = createSystemClock();
  // Build logs and replicas' lines: batched into the store by one kind of writer.
  const openLog: OpenLogLines = (labels) =>
    new LogWriter(store.logs, clock, labels, { onRefused: (error, lines) => logger.warn({ err: error, jobId: labels.jobId, lines }, 'log lines not stored') });
  const metrics = new ServiceMetrics();
  const telemetry = telemetryOf(logTelemetry(logger), metrics);
  const servicePublicUrl = () => config.publicUrl ?? publicUrl();
  const signingSecret = await loadUrlSigningSecret(config.dataDir);
  const uploads = new LocalUploads({ folder: join(config.dataDir, 'uploads'), publicUrl: servicePublicUrl, clock, signingSecret });
  const downloads = new LocalDownloads({
    publicUrl: servicePublicUrl,
    clock,
    expiresInS: config.fileUrlExpiresS,
    signingSecret,
    open: (jobId, slot) => openOutputFile(config.dataDir, jobId, slot),
  });
  const artifacts = createFileArtifacts(config.dataDir, uploads, downloads);
  const builder = new LocalBuilder({
    store,
    artifacts,
    clock,
    openLog,
    environments: new PythonEnvironments({
      folder: config.environmentsDir,
      scratchFolder: join(scratchFolder, 'builds'),
      pipArgs: config.pipArgs,
      sandbox: sandbox.sandbox,
    }),
    versionsFolder: join(config.dataDir, 'versions'),
    importCheck: { sandbox: sandbox.sandbox, scratchFolder: join(scratchFolder, 'builds') },
    defaultPython: config.python,
    pythonInterpreters: config.pythonInterpreters,
    installSystemPackages: config.installSystemPackages,
    bundleLimits: config.bundleLimits,
    onError: (error, versionId) => logger.error({ err: error, versionId }, 'build failed unexpectedly'),
    telemetry,
  });
  const defaultPythonVersion = defaultPython.version;
  // The operator's weights (services/budgets.ts), read by the time a job is taken.
  const queue = new MemoryJobQueue({ weightOf: (organizationId): number => services.budgets.weightOf(organizationId) });
  const localCompute = await prepareLocalCompute({
    config,
    store,
    artifacts,
    queue,
    clock,
    openLog,
    logger,
    sandbox: sandbox.sandbox,
    publicUrl: servicePublicUrl,
    telemetry,
  });
  const services = createServices({
    store,
    artifacts,
    builder,
    clock,
    queue,
    events: jobEvents,
    logFeed,
    streamPollMs: undefined,
    compute: localCompute,
    deliveryScheduler: (deliverer) =>
      new LocalDeliveryScheduler(store, clock, deliverer, (error) => logger.error({ err: error }, 'webhook delivery failed unexpectedly')),
    webhookSender: createHttpWebhookSender({ allowed: config.webhookAllow, timeoutMs: config.webhookTimeoutMs }),
    resolveHost: dnsResolver,
    defaultPythonVersion,
    maxUploadBytes: config.maxUploadBytes,
    checkBundle: (bundle) => checkBundle(bundle, config.bundleLimits),
    awaitTimeoutMs: config.awaitTimeoutMs,
    maxQueuedPerVersion: config.maxQueuedPerVersion,
    webhookAllow: config.webhookAllow,
    webhookRetryBaseMs: config.webhookRetryBaseMs,
    pricing: config.pricing,
    operatorToken: config.operatorToken,
    // Made below, once the lifecycle it ends jobs through exists; no push is served before.
    onJobPushed: (job) => startDeadlines.watch(job),
    onObserverError: (error, event) => logger.error({ err: error, jobId: event.job.id, event: event.type }, 'job observer failed'),
    freeBytes: async () => {
      const space = await statfs(config.dataDir);
      return space.bavail * space.bsize;
    },
    telemetry,
  });
  const { compute: localAgent, deliveryScheduler } = services;
  const retention = new RetentionSweeper({
    retention: localStore.retention,
    dataDir: config.dataDir,
    clock,
    keptMicros: config.retentionMicros,
    intervalMs: config.retentionSweepMs,
    onError: (error) => logger.error({ err: error }, 'retention sweep failed; the next one tries again'),
  });
  const startDeadlines: StartDeadlines = new StartDeadlines(store, services.lifecycle, clock);
  queue.onEnqueue((versionId) => localAgent.wake(versionId));
  builder.onBuildFinished(async (version) => {
    await services.jobPushes.releaseWaitingJobs(version);
    if (version.buildStatus === 'ready') localAgent.versionReady(version);
  });
  return {
    services,
    builder,
    uploads,
    downloads,
    metrics: metricsEndpoint({
      token: config.metricsToken,
      render: async () => metrics.render({ liveJobs: await store.jobs.listByStatus(['queued', 'processing']), replicas: await localAgent.replicaCounts() }),
    }),
    agent: localAgent,
    sandbox,
    jobEvents,
    logFeed,
    store,
    async recover() {
      await builder.resumeUnfinished();
      await deliveryScheduler.resume();
      await localAgent.recover(await store.versions.listByBuildStatus(['ready']));
      retention.start();
      startDeadlines.start((error) => logger.error({ err: error }, 'the pass over start deadlines failed; the next one tries again'));
    },
    async close(graceMs = 0) {
      await retention.stop();
      await startDeadlines.stop();
      await localAgent.shutdown(graceMs);
      await deliveryScheduler.stop();
      await builder.idle();
      await store.close();
    },
  };
}
