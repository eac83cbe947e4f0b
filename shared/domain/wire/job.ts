import { z } from 'zod';
import type { ChildJob, JobOutput, JobRecord } from '../job.js';
import { JOB_STATUSES } from '../job.js';
import { DEFAULT_PRIORITY } from '../scheduling.js';
import type { ListedOutput } from '../listPreview.js';
import { formatNullableTimestamp, formatTimestamp } from '../time.js';
import type { WireInputOutput } from './common.js';
import { inputOutputSchema, timestampSchema } from './common.js';

export const jobWireSchema = z.strictObject({
  id: z.string(),
  function_id: z.string(),
  organization_id: z.string(),
  function: z.strictObject({ name: z.string(), owner_name: z.string() }),
  status: z.enum(JOB_STATUSES),
  created_at: timestampSchema.nullable(),
  started_at: timestampSchema.nullable(),
  completed_at: timestampSchema.nullable(),
  error: z.string().nullable(),
  visibility: z.enum(['public', 'private']),
  run_id: z.string().nullable(),
  inputs: z.record(z.string(), z.unknown()).optional(),
  outputs: z.array(z.union([inputOutputSchema, z.array(inputOutputSchema)])).optional(),
  children: z.record(z.string(), z.array(z.strictObject({ id: z.string(), status: z.enum(JOB_STATUSES), created_at: timestampSchema }))).optional(),
  /** Sluice's: on a list page, the job has more children than `children` shows (GET the job for all). */
  children_truncated: z.literal(true).optional(),
  /** Sluice's: some inputs passed the answer's budget and are shown null (the pusher has them). */
  inputs_truncated: z.literal(true).optional().describe("Sluice's, present only then: some inputs passed the answer's byte budget and are shown `null`."),
  /** Sluice's: the job has outputs past those shown; `next_output_offset` reads on. */
  outputs_truncated: z
    .literal(true)
    .optional()
    .describe("Sluice's, present only then: the job has more outputs than fit this answer's byte budget (4 MB of values); read on from `next_output_offset`."),
  next_output_offset: z
    .int()
    .optional()
    .describe(
      "Sluice's, present only with `outputs_truncated`: the `offset` that gets the outputs after these (GET /v2/jobs/{job_id}?offset=N, or its await).",
    ),
  restarts: z.array(z.record(z.string(), z.unknown())).nullable().optional(),
  priority: z.int().optional().describe("Sluice's: the job's priority (higher starts first within its organization's share)."),
  start_timeout: z.number().nullable().optional().describe("Sluice's: seconds after its push by which the job had to start, or null."),
  retries: z.int().optional().describe("Sluice's: how many times the job runs again if it raises."),
  replay_of: z.string().nullable().optional().describe("Sluice's: the job this one replays, or null."),
  replays: z.array(z.string()).optional().describe("Sluice's, on one job's view: the latest jobs that replay this one (the last 20), oldest first."),
});
export type WireJob = z.infer<typeof jobWireSchema>;

export const jobPageWireSchema = z.strictObject({ data: z.array(jobWireSchema), next_offset: z.int() });

export const pushResultWireSchema = z.strictObject({
  id: z.string(),
  run_id: z.string(),
  stream_output: z.boolean(),
  status: z.enum(JOB_STATUSES),
  organization_id: z.string(),
  model_id: z.string(),
  workflow_id: z.string().nullable(),
  /** Sluice extension, present only then: why the job will wait (no machine of its type, see capacityWarning). */
  warning: z.string().optional(),
});

/**
 * An output as the interface prints an InputOutput (in a Job, and in webhook payloads). One a
 * list page left out has null data, and its description says how to get it.
 */
export function serializeOutput(output: JobOutput | ListedOutput): WireInputOutput {
  const omitted = 'omitted' in output && output.omitted;
  const size = omitted && output.bytes !== null ? ` (${output.bytes} bytes)` : '';
  const description = omitted ? `Left out of this list${size}: GET /v2/jobs/${output.jobId} returns it.` : '';
  return { type: output.type, name: output.name, data: output.data, description, schema: {}, run_id: output.runId, is_optional: false };
}

/** What a job's answer says it left out: more children (a list's), inputs past the budget, outputs from an offset on. */
export interface JobCuts {
  childrenCut?: boolean;
  inputsCut?: boolean;
  nextOutputOffset?: number;
}

/** A job as the interface prints it, with its outputs (from `offset`), its children, and what it left out (Sluice's fields, present only then). */
export function serializeJob(job: JobRecord, outputs: (JobOutput | ListedOutput)[], children: ChildJob[], cuts: JobCuts = {}): WireJob {
  return {
    id: job.id,
    function_id: job.functionId,
    organization_id: job.organizationId,
    function: { name: job.functionName, owner_name: job.ownerName },
    status: job.status,
    created_at: formatTimestamp(job.createdAt),
    started_at: formatNullableTimestamp(job.startedAt),
    completed_at: formatNullableTimestamp(job.completedAt),
    error: job.error,
    visibility: job.visibility,
    run_id: job.runId,
    inputs: job.inputs,
    outputs: outputs.map(serializeOutput),
    children: serializeChildren(children),
    ...(cuts.childrenCut ? { children_truncated: true as const } : {}),
    ...(cuts.inputsCut ? { inputs_truncated: true as const } : {}),
    ...(cuts.nextOutputOffset === undefined ? {} : { outputs_truncated: true as const, next_output_offset: cuts.nextOutputOffset }),
    restarts: job.restarts.map((restart) => ({ ...restart, timestamp: formatTimestamp(restart.timestamp) })),
    priority: job.priority ?? DEFAULT_PRIORITY,
    start_timeout: job.startTimeoutSeconds ?? null,
    retries: job.maxRetries ?? 0,
    replay_of: job.replayOf ?? null,
    ...(job.replays === undefined ? {} : { replays: job.replays }),
  };
}

/** Keyed by the function called (`owner/name`), each value the jobs pushed to it, oldest first: Sieve's arrays. */
function serializeChildren(children: ChildJob[]): Record<string, { id: string; status: JobRecord['status']; created_at: string }[]> {
  const byFunction: Record<string, { id: string; status: JobRecord['status']; created_at: string }[]> = {};
  for (const child of children) {
    const key = `${child.ownerName}/${child.functionName}`;
    (byFunction[key] ??= []).push({ id: child.id, status: child.status, created_at: formatTimestamp(child.createdAt) });
  }
  return byFunction;
}

export function serializePushResult(job: JobRecord, streamOutput: boolean) {
  return {
    id: job.id,
    run_id: job.runId ?? '',
    stream_output: streamOutput,
    status: job.status,
    organization_id: job.organizationId,
    model_id: job.versionId,
    workflow_id: job.parentJobId,
  };
}
