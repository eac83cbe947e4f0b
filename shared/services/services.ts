import type { Artifacts } from '../ports/artifacts.js';
import type { Builder } from '../ports/builder.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { Compute } from '../ports/compute.js';
import type { JobEvents } from '../ports/jobEvents.js';
import type { JobQueue } from '../ports/jobQueue.js';
import { AuthService } from './authService.js';
import { DeployService } from './deployService.js';
import { FunctionAccess } from './functionAccess.js';
import { FunctionService } from './functionService.js';
import { JobLifecycle } from './jobLifecycle.js';
import { JobService } from './jobService.js';
import { KeyService } from './keyService.js';
import { LogService } from './logService.js';
import { VersionService } from './versionService.js';

/** The adapters the services are built from; the composition root picks local or AWS ones. */
export interface Adapters {
  store: Store;
  artifacts: Artifacts;
  builder: Builder;
  clock: Clock;
  queue: JobQueue;
  events: JobEvents;
  /** A getter: the compute adapter (the worker agent) is built from these services. */
  compute: () => Compute;
  defaultPythonVersion: string;
  awaitTimeoutMs: number;
}

export interface Services {
  auth: AuthService;
  keys: KeyService;
  functions: FunctionService;
  versions: VersionService;
  deploy: DeployService;
  logs: LogService;
  jobs: JobService;
  lifecycle: JobLifecycle;
  compute: () => Compute;
  awaitTimeoutMs: number;
}

export function createServices(adapters: Adapters): Services {
  const { store, clock } = adapters;
  const access = new FunctionAccess(store);
  const versions = new VersionService(store, access);
  const auth = new AuthService(store);
  const lifecycle = new JobLifecycle(store, adapters.queue, adapters.events, clock);
  const jobs = new JobService({ store, access, versions, queue: adapters.queue, events: adapters.events, lifecycle, compute: adapters.compute, artifacts: adapters.artifacts, clock });
  return {
    auth,
    keys: new KeyService(store, clock, () => auth.forgetKeys()),
    functions: new FunctionService(store, access, versions, clock),
    versions,
    deploy: new DeployService(store, adapters.artifacts, adapters.builder, clock, adapters.defaultPythonVersion),
    logs: new LogService(store),
    jobs,
    lifecycle,
    compute: adapters.compute,
    awaitTimeoutMs: adapters.awaitTimeoutMs,
  };
}
