import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalBuilder } from '../adapters/local/build/localBuilder.js';
import { PythonEnvironments } from '../adapters/local/build/pythonEnvironments.js';
import { probe } from '../adapters/local/build/pythonInterpreters.js';
import { createFileArtifacts } from '../adapters/local/fileArtifacts.js';
import { LocalUploads } from '../adapters/local/localUploads.js';
import type { SandboxChoice } from '../adapters/local/sandbox/chooseSandbox.js';
import { chooseSandbox } from '../adapters/local/sandbox/chooseSandbox.js';
import { LocalDownloads } from '../adapters/local/localDownloads.js';
import { createSystemClock } from '../adapters/systemClock.js';
import type { Config } from '../config.js';
import { createMemoryJobEvents } from '../adapters/local/memoryJobEvents.js';
import { MemoryJobQueue } from '../adapters/local/memoryJobQueue.js';
import { LocalDeliveryScheduler } from '../adapters/local/localDeliveryScheduler.js';
import { dnsResolver } from '../adapters/dnsResolver.js';
import { createHttpWebhookSender } from '../adapters/httpWebhookSender.js';
import type { WorkerAgent } from '../runtime/workerAgent.js';
import { createLocalCompute } from './localCompute.js';
import { openLocalStore } from './openStore.js';
import { RetentionSweeper } from '../adapters/local/retentionSweeper.js';
import type { Services } from '../services/services.js';
import { createServices } from '../services/services.js';
import type { Logger } from './logger.js';
import { checkBundle } from '../packaging/bundleReader.js';

export interface LocalApp {
  services: Services;
  builder: LocalBuilder;
  /** The upload URLs' receiver, which the gateway serves beside the route table. */
  uploads: LocalUploads;
  /** The output files' download URLs, served beside them. */
  downloads: LocalDownloads;
  agent: WorkerAgent;
  /** How function code is confined; its warning, when it is not, is for the start banner too. */
  sandbox: SandboxChoice;
  /** Resumes what a stopped service left: unfinished builds, queued and interrupted jobs. */
  recover(): Promise<void>;
  close(): Promise<void>;
}

/** Used when the default interpreter cannot be asked its version. */
const FALLBACK_PYTHON_VERSION = '3.11';

/**
 * The one place adapters are chosen and services built. The local mode: SQLite in the data
 * directory, bundles and environments beside it, builds in this process.
 */
export async function composeLocalApp(config: Config, logger: Logger, publicUrl: () => string = () => `http://${config.host}:${config.port}`): Promise<LocalApp> {
  if (config.mode !== 'local') {
    throw new Error('This command runs the local mode. The AWS mode is deployed with `cdk deploy` (see docs/deploying-to-aws.md).');
  }
  const sandbox = await chooseSandbox(config.sandbox);
  if (sandbox.warning) logger.warn({ sandbox: config.sandbox }, sandbox.warning);
  else logger.info('function code runs in a bubblewrap sandbox');
  // Scratch folders of replicas and builds of an earlier run are left over only after a crash.
  const scratchFolder = join(config.dataDir, 'scratch');
  await rm(scratchFolder, { recursive: true, force: true });
  const store = openLocalStore(config);
  const clock = createSystemClock();
  const servicePublicUrl = () => config.publicUrl ?? publicUrl();
  const uploads = new LocalUploads({ folder: join(config.dataDir, 'uploads'), publicUrl: servicePublicUrl, clock });
  const downloads = new LocalDownloads({ publicUrl: servicePublicUrl, clock, expiresInS: config.fileUrlExpiresS, open: (jobId, index) => artifacts.openOutputFile(jobId, index) });
  const artifacts = createFileArtifacts(config.dataDir, uploads, () => downloads);
  const builder = new LocalBuilder({
    store,
    artifacts,
    clock,
    environments: new PythonEnvironments({ folder: join(config.dataDir, 'envs'), scratchFolder: join(scratchFolder, 'builds'), pipArgs: config.pipArgs, sandbox: sandbox.sandbox }),
    versionsFolder: join(config.dataDir, 'versions'),
    defaultPython: config.python,
    bundleLimits: config.bundleLimits,
    onError: (error, versionId) => logger.error({ err: error, versionId }, 'build failed unexpectedly'),
  });
  const defaultPythonVersion = (await probe(config.python))?.version ?? FALLBACK_PYTHON_VERSION;
  const queue = new MemoryJobQueue();
  // The agent is built from the services it serves: the services reach it through this reference.
  const agentRef: { current?: WorkerAgent } = {};
  const deliveryScheduler = new LocalDeliveryScheduler(store, clock, (error) => logger.error({ err: error }, 'webhook delivery failed unexpectedly'));
  const services = createServices({
    store,
    artifacts,
    builder,
    clock,
    queue,
    events: createMemoryJobEvents(),
    compute: () => agentRef.current as WorkerAgent,
    deliveryScheduler,
    webhookSender: createHttpWebhookSender({ allowed: config.webhookAllow, timeoutMs: config.webhookTimeoutMs }),
    resolveHost: dnsResolver,
    defaultPythonVersion,
    maxUploadBytes: config.maxUploadBytes,
    checkBundle: (bundle) => checkBundle(bundle, config.bundleLimits),
    awaitTimeoutMs: config.awaitTimeoutMs,
    webhookAllow: config.webhookAllow,
    webhookRetryBaseMs: config.webhookRetryBaseMs,
    pricing: config.pricing,
    onObserverError: (error, event) => logger.error({ err: error, jobId: event.job.id, event: event.type }, 'job observer failed'),
  });
  deliveryScheduler.useDeliverer(services.webhookDeliverer);
  const retention = new RetentionSweeper({
    retention: store.retention,
    dataDir: config.dataDir,
    clock,
    keptMicros: config.retentionMicros,
    intervalMs: config.retentionSweepMs,
    onError: (error) => logger.error({ err: error }, 'retention sweep failed; the next one tries again'),
  });
  const localAgent = await createLocalCompute({ config, store, artifacts, queue, clock, services, logger, sandbox: sandbox.sandbox, publicUrl: servicePublicUrl });
  agentRef.current = localAgent;
  queue.onEnqueue((versionId) => localAgent.wake(versionId));
  builder.onBuildFinished(async (version) => {
    await services.jobs.releaseWaitingJobs(version);
    if (version.buildStatus === 'ready') localAgent.versionReady(version);
  });
  return {
    services,
    builder,
    uploads,
    downloads,
    agent: localAgent,
    sandbox,
    async recover() {
      await builder.resumeUnfinished();
      await deliveryScheduler.resume();
      await localAgent.recover(await store.versions.listByBuildStatus(['ready']));
      retention.start();
    },
    async close() {
      await retention.stop();
      await localAgent.shutdown();
      await deliveryScheduler.stop();
      await builder.idle();
      await store.close();
    },
  };
}
