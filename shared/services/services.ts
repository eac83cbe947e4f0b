import type { Pricing } from '../domain/pricing.js';
import type { Artifacts } from '../ports/artifacts.js';
import type { Builder } from '../ports/builder.js';
import type { BundleChecker } from '../ports/bundleChecker.js';
import type { Clock } from '../ports/clock.js';
import type { Compute } from '../ports/compute.js';
import type { DeliveryScheduler } from '../ports/deliveryScheduler.js';
import type { HostResolver } from '../ports/hostResolver.js';
import type { JobEvent, JobEvents } from '../ports/jobEvents.js';
import type { JobQueue } from '../ports/jobQueue.js';
import type { LogFeed } from '../ports/logFeed.js';
import type { Store } from '../ports/store.js';
import type { WebhookSender } from '../ports/webhookSender.js';
import type { Telemetry } from '../ports/telemetry.js';
import { NO_TELEMETRY } from '../ports/telemetry.js';
import type { RestrictedKind } from '../domain/networkAddress.js';
import { AuthService } from './authService.js';
import { BuildProgress } from './buildProgress.js';
import { ConcurrencyService } from './concurrencyService.js';
import { DeployService } from './deployService.js';
import { EventStreams } from './eventStreams.js';
import { IdempotentPushes } from './idempotentPush.js';
import { FunctionAccess } from './functionAccess.js';
import { FunctionService } from './functionService.js';
import { HealthService } from './healthService.js';
import { JobLifecycle } from './jobLifecycle.js';
import { JobNotifier } from './jobNotifier.js';
import { JobService } from './jobService.js';
import { KeyService } from './keyService.js';
import { OrganizationKeys } from './organizationKeys.js';
import { Sweeper } from './sweeper.js';
import { LogService } from './logService.js';
import { UsageService } from './usageService.js';
import { VersionService } from './versionService.js';
import { WebhookDeliverer } from './webhookDeliverer.js';
import { WebhookSecrets } from './webhookSecrets.js';
import { WebhookService } from './webhookService.js';
import { WebhookUrlPolicy } from './webhookUrlPolicy.js';

/** The adapters the services are built from; the composition root picks local or AWS ones. */
export interface Adapters {
  store: Store;
  artifacts: Artifacts;
  builder: Builder;
  clock: Clock;
  queue: JobQueue;
  events: JobEvents;
  /** Stored log lines as they come, for the streams that follow them. */
  logFeed: LogFeed;
  /** How often an event stream reads the store when nothing wakes it (AWS); undefined: only when woken. */
  streamPollMs: number | undefined;
  /** A getter: the compute adapter (the worker agent) is built from these services. */
  compute: () => Compute;
  deliveryScheduler: DeliveryScheduler;
  webhookSender: WebhookSender;
  resolveHost: HostResolver;
  defaultPythonVersion: string;
  /** The largest bundle a deploy takes through an upload. */
  maxUploadBytes: number;
  /** Refuses a bundle past the unpacked limits, with links, or with paths out of its folder. */
  checkBundle: BundleChecker;
  awaitTimeoutMs: number;
  /** Jobs a version's queue holds before a push is refused (429); the queue's depth says how many wait. */
  maxQueuedPerVersion: number;
  webhookAllow: readonly RestrictedKind[];
  webhookRetryBaseMs: number;
  pricing: Pricing;
  onObserverError: (error: unknown, event: JobEvent) => void;
  /** Where jobs', builds' and webhooks' moments go (the service log, metrics); none by default. */
  telemetry?: Telemetry;
}

export interface Services {
  auth: AuthService;
  keys: KeyService;
  /** The calling organization's own keys (the /v2/keys routes). */
  organizationKeys: OrganizationKeys;
  functions: FunctionService;
  versions: VersionService;
  deploy: DeployService;
  logs: LogService;
  jobs: JobService;
  /** Pushes, with an optional Idempotency-Key. */
  pushes: IdempotentPushes;
  streams: EventStreams;
  lifecycle: JobLifecycle;
  webhooks: WebhookService;
  webhookSecrets: WebhookSecrets;
  webhookDeliverer: WebhookDeliverer;
  usage: UsageService;
  concurrency: ConcurrencyService;
  buildProgress: BuildProgress;
  sweeper: Sweeper;
  compute: () => Compute;
  awaitTimeoutMs: number;
  health: HealthService;
}

export function createServices(adapters: Adapters): Services {
  const { store, clock } = adapters;
  const telemetry = adapters.telemetry ?? NO_TELEMETRY;
  const access = new FunctionAccess(store);
  const versions = new VersionService(store, access, adapters.compute);
  const auth = new AuthService(store);
  const webhookPolicy = new WebhookUrlPolicy(adapters.resolveHost, adapters.webhookAllow);
  const notifier = new JobNotifier(adapters.events, adapters.onObserverError, () => store.durable());
  const webhooks = new WebhookService(store, adapters.deliveryScheduler, clock);
  const usage = new UsageService(store, versions, access, adapters.pricing, clock);
  // Usage first: its write joins the job's move in one commit (JobLifecycle.completeFrom).
  notifier.observe((event) => usage.onJobEvent(event));
  notifier.observe((event) => webhooks.onJobEvent(event));
  notifier.observe((event) => {
    if (event.type !== 'output') telemetry.record({ kind: 'job', event });
  });
  const lifecycle = new JobLifecycle(store, adapters.queue, notifier, clock);
  const webhookSecrets = new WebhookSecrets(store);
  const webhookDeliverer = new WebhookDeliverer(store, webhookSecrets, adapters.webhookSender, clock, adapters.webhookRetryBaseMs, adapters.artifacts, telemetry);
  const jobs = new JobService({
    store,
    access,
    versions,
    queue: adapters.queue,
    events: adapters.events,
    lifecycle,
    compute: adapters.compute,
    artifacts: adapters.artifacts,
    notifier,
    webhookPolicy,
    clock,
    maxQueuedPerVersion: adapters.maxQueuedPerVersion,
  });
  const logs = new LogService(store);
  return {
    auth,
    keys: new KeyService(store, clock, () => auth.forgetKeys()),
    organizationKeys: new OrganizationKeys(store, clock, () => auth.forgetKeys()),
    functions: new FunctionService(store, access, versions, clock, webhookPolicy),
    versions,
    deploy: new DeployService(store, adapters.artifacts, adapters.builder, clock, adapters.defaultPythonVersion, adapters.maxUploadBytes, adapters.checkBundle),
    logs,
    jobs,
    pushes: new IdempotentPushes(store, jobs, clock),
    streams: new EventStreams({ store, jobs, logs, events: adapters.events, logFeed: adapters.logFeed, pollMs: adapters.streamPollMs }),
    lifecycle,
    webhooks,
    webhookSecrets,
    webhookDeliverer,
    usage,
    concurrency: new ConcurrencyService(store, access, clock),
    buildProgress: new BuildProgress(store, clock, (version) => jobs.releaseWaitingJobs(version), telemetry),
    sweeper: new Sweeper(store, adapters.builder, adapters.deliveryScheduler, webhookDeliverer, lifecycle, clock),
    compute: adapters.compute,
    awaitTimeoutMs: adapters.awaitTimeoutMs,
    health: new HealthService(store),
  };
}
