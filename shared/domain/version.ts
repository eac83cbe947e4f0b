import type { BuildStatus } from './buildStatus.js';
import type { EnvironmentVariable, InputSpec, OutputSpec } from './functionMetadata.js';
import type { MachineType } from './machineTypes.js';
import type { Micros } from './time.js';

export interface Entrypoint {
  file: string;
  symbol: string;
  kind: 'function' | 'class';
  generator: boolean;
}

/** One deploy of a function: the code bundle and everything declared about it. */
export interface VersionRecord {
  id: string;
  functionId: string;
  organizationId: string;
  createdAt: Micros;
  buildStatus: BuildStatus;
  queuedAt: Micros | null;
  builtAt: Micros | null;
  readyAt: Micros | null;
  /** Why the build ended in `error`; null otherwise. */
  buildError: string | null;
  computeType: MachineType;
  split: number;
  pythonVersion: string;
  pythonPackages: string[];
  systemPackages: string[];
  /** The decorator's `run_commands`, run at build after the Python packages (absent on older versions: none). */
  runCommands?: string[];
  cudaVersion: string | null;
  inputs: InputSpec[];
  outputs: OutputSpec[];
  environmentVariables: EnvironmentVariable[];
  functionDependencies: string[];
  minimumReplicas: number;
  maximumReplicas: number | null;
  /** Edited after the deploy (ReplicaBounds); absent on versions never edited: the deployment's default, and no buffer. */
  scaledownWindowSeconds?: number | null;
  bufferReplicas?: number;
  streamOutput: boolean;
  restartOnError: boolean;
  /** The decorator's `timeout`: seconds a run may take; null (or absent, on older versions) for none. */
  timeoutSeconds?: number | null;
  /** The decorator's `retries`: its jobs' default (a push's own overrides it); absent on older versions: 0. */
  retries?: number;
  entrypoint: Entrypoint;
  /** AWS: worker tasks that stopped in a row without their worker starting (absent: none). */
  taskFailures?: number;
  /** AWS: why its last task found no capacity (ECS's reason and what to do), until a worker starts; null or absent: none. */
  capacityShortage?: string | null;
}

export type VersionPatch = Partial<Pick<VersionRecord, 'buildStatus' | 'builtAt' | 'readyAt' | 'buildError' | 'taskFailures' | 'capacityShortage'>>;

/** What an edit of a version changes without a redeploy (the edit-version route). */
export type { ReplicaBounds } from './replicaBounds.js';
