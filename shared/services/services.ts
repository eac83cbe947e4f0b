import type { Artifacts } from '../ports/artifacts.js';
import type { Builder } from '../ports/builder.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { WorkerCountsReader } from '../ports/workerCounts.js';
import { AuthService } from './authService.js';
import { DeployService } from './deployService.js';
import { FunctionAccess } from './functionAccess.js';
import { FunctionService } from './functionService.js';
import { KeyService } from './keyService.js';
import { LogService } from './logService.js';
import { VersionService } from './versionService.js';

/** The adapters the services are built from; the composition root picks local or AWS ones. */
export interface Adapters {
  store: Store;
  artifacts: Artifacts;
  builder: Builder;
  clock: Clock;
  workers: WorkerCountsReader;
  defaultPythonVersion: string;
}

export interface Services {
  auth: AuthService;
  keys: KeyService;
  functions: FunctionService;
  versions: VersionService;
  deploy: DeployService;
  logs: LogService;
  workers: WorkerCountsReader;
}

export function createServices(adapters: Adapters): Services {
  const { store, clock } = adapters;
  const access = new FunctionAccess(store);
  const versions = new VersionService(store, access);
  return {
    auth: new AuthService(store),
    keys: new KeyService(store, clock),
    functions: new FunctionService(store, access, versions, clock),
    versions,
    deploy: new DeployService(store, adapters.artifacts, adapters.builder, clock, adapters.defaultPythonVersion),
    logs: new LogService(store),
    workers: adapters.workers,
  };
}
