import type { Pricing } from '../domain/pricing.js';
import type { Artifacts } from '../ports/artifacts.js';
import type { Builder } from '../ports/builder.js';
import type { BundleChecker } from '../ports/bundleChecker.js';
import type { Clock } from '../ports/clock.js';
import type { Compute } from '../ports/compute.js';
import type { DeliveryAttempts, DeliveryScheduler } from '../ports/deliveryScheduler.js';
import type { HostResolver } from '../ports/hostResolver.js';
import type { JobEvent, JobEvents } from '../ports/jobEvents.js';
import type { JobQueue } from '../ports/jobQueue.js';
import type { LogFeed } from '../ports/logFeed.js';
import type { Store } from '../ports/store.js';
import type { WebhookSender } from '../ports/webhookSender.js';
import type { Telemetry } from '../ports/telemetry.js';
import { NO_TELEMETRY } from '../ports/telemetry.js';
import type { JobRecord } from '../domain/job.js';
import type { RestrictedKind } from '../domain/networkAddress.js';
import { AuthService } from './authService.js';
import { BuildProgress } from './buildProgress.js';
import { Budgets } from './budgets.js';
import { ConcurrencyService } from './concurrencyService.js';
import { DeployService } from './deployService.js';
import { EventStreams } from './eventStreams.js';
import { IdempotentPushes } from './idempotentPush.js';
import { FunctionAccess } from './functionAccess.js';
import { FunctionService } from './functionService.js';
import { HealthService } from './healthService.js';
import { JobLifecycle } from './jobLifecycle.js';
import { JobNotifier } from './jobNotifier.js';
import { JobCalls } from './jobCalls.js';
import { JobCancels } from './jobCancels.js';
import { JobPushes } from './jobPushes.js';
import { JobReads } from './jobReads.js';
import { JobReplays } from './jobReplays.js';
import { JobViews } from './jobViews.js';
import { JobWaits } from './jobWaits.js';
import { KeyService } from './keyService.js';
import { OperatorLimits } from './operatorLimits.js';
import { OrganizationKeys } from './organizationKeys.js';
import { Sweeper, SWEEPER_DEFAULTS } from './sweeper.js';
import { LogService } from './logService.js';
import { UsageService } from './usageService.js';
import { VersionEdits } from './versionEdits.js';
import { VersionService } from './versionService.js';
import { WebhookDeliverer } from './webhookDeliverer.js';
import { WebhookSecrets } from './webhookSecrets.js';
import { WebhookService } from './webhookService.js';
import { WebhookUrlPolicy } from './webhookUrlPolicy.js';

/** What a worker agent reports to and calls while it runs jobs: the compute adapter is built from them. */
export interface WorkerServices {
  lifecycle: JobLifecycle;
  calls: JobCalls;
  usage: UsageService;
}

/**
 * The adapters the services are built from; the composition root picks local or AWS ones. The
 * webhook scheduler and the compute adapter are factories: each is built from services that
 * are built first (the deliverer it runs, the services a local worker agent calls), so no
 * object is ever used before it exists.
 */
export interface Adapters<Scheduler extends DeliveryScheduler = DeliveryScheduler, Machines extends Compute = Compute> {
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
  compute: (worker: WorkerServices) => Machines;
  deliveryScheduler: (deliverer: DeliveryAttempts) => Scheduler;
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
  /** SLUICE_OPERATOR_TOKEN: opens the operator API (organizations' limits); none, the API is off. */
  operatorToken?: string;
  /** Told of each job pushed (the local mode's start deadlines). */
  onJobPushed?: (job: JobRecord) => void;
  onObserverError: (error: unknown, event: JobEvent) => void;
  /** The bytes free for the service's data (the local mode's disk; /healthz says when it is full). */
  freeBytes?: () => Promise<number>;
  /** Where jobs', builds' and webhooks' moments go (the service log, metrics); none by default. */
  telemetry?: Telemetry;
}

export interface Services<Scheduler extends DeliveryScheduler = DeliveryScheduler, Machines extends Compute = Compute> extends WorkerServices {
  auth: AuthService;
  keys: KeyService;
  /** The calling organization's own keys (the /v2/keys routes). */
  organizationKeys: OrganizationKeys;
  functions: FunctionService;
  versions: VersionService;
  versionEdits: VersionEdits;
  deploy: DeployService;
  logs: LogService;
  /** Reading jobs: one, a list page, a file's URL. */
  jobs: JobReads;
  /** New jobs, and the jobs that wait for a build. */
  jobPushes: JobPushes;
  /** Pushes, with an optional Idempotency-Key. */
  pushes: IdempotentPushes;
  /** A job pushed again, linked to its original. */
  replays: JobReplays;
  waits: JobWaits;
  cancels: JobCancels;
  streams: EventStreams;
  webhooks: WebhookService;
  webhookSecrets: WebhookSecrets;
  webhookDeliverer: WebhookDeliverer;
  deliveryScheduler: Scheduler;
  concurrency: ConcurrencyService;
  buildProgress: BuildProgress;
  sweeper: Sweeper;
  compute: Machines;
  awaitTimeoutMs: number;
  health: HealthService;
  /** Organizations' budgets and quotas at work; their weights for the fair-share queue. */
  budgets: Budgets;
  /** The operator API's side of organizations' limits, and the token that opens it. */
  operatorLimits: OperatorLimits;
  operatorToken: string | undefined;
}

/** Builds the services in dependency order: what the webhook scheduler and the worker agent need first, then them, then the rest. */
export function createServices<Scheduler extends DeliveryScheduler, Machines extends Compute>(
  adapters: Adapters<Scheduler, Machines>,
): Services<Scheduler, Machines> {
  const { store, clock, artifacts } = adapters;
  const telemetry = adapters.telemetry ?? NO_TELEMETRY;
  const access = new FunctionAccess(store);
  const versions = new VersionService(store, access);
  const auth = new AuthService(store);
  const webhookPolicy = new WebhookUrlPolicy(adapters.resolveHost, adapters.webhookAllow);
  const webhookSecrets = new WebhookSecrets(store);
  const webhookDeliverer = new WebhookDeliverer(store, webhookSecrets, adapters.webhookSender, clock, adapters.webhookRetryBaseMs, artifacts, telemetry);
  const deliveryScheduler = adapters.deliveryScheduler(webhookDeliverer);
  const notifier = new JobNotifier(adapters.events, adapters.onObserverError, () => store.durable());
  const webhooks = new WebhookService(store, deliveryScheduler, clock);
  const budgets = new Budgets(store, webhooks, clock);
  const usage = new UsageService(store, versions, access, adapters.pricing, clock, budgets);
  // Usage and deliveries join the job's move in one commit (JobLifecycle.completeFrom). Each is
  // made once however often it is made (usage's marker, a delivery's id), so a worker that finds
  // a job ended makes again what is missing (JobNotifier.settle).
  notifier.observe((event) => usage.onJobEvent(event), { settle: (event) => usage.onJobEvent(event) });
  notifier.observe((event) => webhooks.onJobEvent(event), { settle: (event) => webhooks.settle(event) });
  // After the job's own events: a receiver of both hears budget.warning after job.complete.
  notifier.observe((event) => budgets.onJobEvent(event), { settle: (event) => budgets.onJobEvent(event) });
  notifier.observe((event) => {
    if (event.type !== 'output') telemetry.record({ kind: 'job', event });
  });
  const lifecycle = new JobLifecycle(store, adapters.queue, notifier, clock);
  const views = new JobViews({ store, artifacts });
  const jobPushes = new JobPushes({
    store,
    access,
    versions,
    queue: adapters.queue,
    lifecycle,
    webhookPolicy,
    clock,
    maxQueuedPerVersion: adapters.maxQueuedPerVersion,
    budgets,
    onPushed: adapters.onJobPushed,
  });
  const waits = new JobWaits({ store, events: adapters.events, views });
  const calls = new JobCalls({ store, pushes: jobPushes, waits, views, artifacts, clock });
  const compute = adapters.compute({ lifecycle, calls, usage });
  const jobs = new JobReads({ store, access, versions, views, artifacts });
  const logs = new LogService(store);
  return {
    auth,
    keys: new KeyService(store, clock, () => auth.forgetKeys()),
    organizationKeys: new OrganizationKeys(store, clock, () => auth.forgetKeys()),
    functions: new FunctionService(store, access, versions, clock, webhookPolicy),
    versions,
    versionEdits: new VersionEdits({ store, access, versions, compute }),
    deploy: new DeployService(store, artifacts, adapters.builder, clock, adapters.defaultPythonVersion, adapters.maxUploadBytes, adapters.checkBundle),
    logs,
    jobs,
    jobPushes,
    pushes: new IdempotentPushes(store, jobPushes, clock),
    replays: new JobReplays({ store, pushes: jobPushes, artifacts }),
    waits,
    cancels: new JobCancels({ store, compute, notifier, views, clock }),
    calls,
    streams: new EventStreams({ store, jobs, logs, events: adapters.events, logFeed: adapters.logFeed, pollMs: adapters.streamPollMs }),
    lifecycle,
    webhooks,
    webhookSecrets,
    webhookDeliverer,
    deliveryScheduler,
    usage,
    concurrency: new ConcurrencyService(store, access, clock),
    buildProgress: new BuildProgress(store, clock, (version) => jobPushes.releaseWaitingJobs(version), telemetry),
    sweeper: new Sweeper(store, adapters.builder, deliveryScheduler, webhookDeliverer, lifecycle, clock, SWEEPER_DEFAULTS, adapters.queue),
    compute,
    awaitTimeoutMs: adapters.awaitTimeoutMs,
    health: new HealthService(store, adapters.freeBytes),
    budgets,
    operatorLimits: new OperatorLimits(store, (organization) => budgets.remember(organization)),
    operatorToken: adapters.operatorToken,
  };
}
