import { serializeFunction, serializeTruncatedFunction } from '../domain/wire/function.js';
import { serializeVersion } from '../domain/wire/version.js';
import type { VersionRecord } from '../domain/version.js';
import type { FunctionView } from '../services/functionService.js';
import type { Services } from '../services/services.js';

/** How routes print resources: the wire serialisers plus what the services know live (workers). */
export function functionView(services: Services, view: FunctionView, truncate: boolean) {
  if (truncate) return serializeTruncatedFunction(view.fn);
  return serializeFunction(view.fn, versionView(services, view.latestVersion, true));
}

export function versionView(services: Services, version: VersionRecord, includePythonVersion = false) {
  return serializeVersion(version, { currentWorkers: services.workers.currentWorkers(version.id), includePythonVersion });
}
