import { z } from 'zod';
import { BUILD_STATUSES } from '../buildStatus.js';
import type { InputSpec, OutputSpec } from '../functionMetadata.js';
import { formatNullableTimestamp } from '../time.js';
import type { VersionRecord } from '../version.js';
import type { WireInputOutput, WorkerCounts } from './common.js';
import { environmentVariableWireSchema, inputOutputSchema, timestampSchema, workerCountsSchema } from './common.js';

export const versionWireSchema = z.strictObject({
  id: z.string(),
  build_status: z.enum(BUILD_STATUSES),
  queued_at: timestampSchema.nullable(),
  built_at: timestampSchema.nullable(),
  ready_at: timestampSchema.nullable(),
  compute_type: z.string(),
  python_version: z.string().optional(),
  python_packages: z.array(z.string()),
  system_packages: z.array(z.string()),
  gpu: z.boolean(),
  split: z.int(),
  inputs: z.array(inputOutputSchema),
  outputs: z.array(inputOutputSchema),
  environment_variables: z.array(environmentVariableWireSchema),
  function_dependencies: z.array(z.string()),
  cuda_version: z.string().nullable(),
  minimum_replicas: z.int(),
  maximum_replicas: z.int().nullable(),
  /** Sluice extension: seconds an idle replica above the minimum stays up; null: the deployment's default. */
  scaledown_window: z.number().nullable(),
  /** Sluice extension: idle replicas kept ready beyond what the version's jobs need while it has any. */
  buffer_replicas: z.int(),
  /** Sluice extension: times a job that raises runs again (the decorator's `retries`; a push may override it). */
  retries: z.int(),
  current_workers: workerCountsSchema.nullable(),
  stream_output: z.boolean().nullable(),
  /** Sluice extension, present only then: why its jobs wait (no machine of its type, see capacityWarning). */
  warning: z.string().optional(),
});
export type WireVersion = z.infer<typeof versionWireSchema>;

const ioSpecToWire = (spec: InputSpec | OutputSpec, isOptional: boolean, data: unknown): WireInputOutput => ({
  type: spec.type,
  name: spec.name,
  data,
  description: spec.description,
  schema: {},
  run_id: '',
  is_optional: isOptional,
});

export interface VersionWireOptions {
  currentWorkers: WorkerCounts;
  /** Why its jobs wait, when they will; absent otherwise. */
  warning?: string | null;
  /** The interface prints python_version only in the single-function detail response. */
  includePythonVersion?: boolean;
}

export function serializeVersion(version: VersionRecord, options: VersionWireOptions): WireVersion {
  return {
    id: version.id,
    build_status: version.buildStatus,
    queued_at: formatNullableTimestamp(version.queuedAt),
    built_at: formatNullableTimestamp(version.builtAt),
    ready_at: formatNullableTimestamp(version.readyAt),
    compute_type: version.computeType,
    ...(options.includePythonVersion ? { python_version: version.pythonVersion } : {}),
    python_packages: version.pythonPackages,
    system_packages: version.systemPackages,
    gpu: version.computeType !== 'cpu',
    split: version.split,
    // An input's `data` is its default value, null when it has none.
    inputs: version.inputs.map((input) => ioSpecToWire(input, input.is_optional, input.default ?? null)),
    outputs: version.outputs.map((output) => ioSpecToWire(output, false, null)),
    environment_variables: version.environmentVariables,
    function_dependencies: version.functionDependencies,
    cuda_version: version.cudaVersion,
    minimum_replicas: version.minimumReplicas,
    maximum_replicas: version.maximumReplicas,
    scaledown_window: version.scaledownWindowSeconds ?? null,
    buffer_replicas: version.bufferReplicas ?? 0,
    retries: version.retries ?? 0,
    current_workers: options.currentWorkers,
    stream_output: version.streamOutput,
    ...(options.warning ? { warning: options.warning } : {}),
  };
}
