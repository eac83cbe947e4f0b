// A job's record as the `jobs` row keeps it, and a move's patch applied to it.
import type { JobOutput, JobPatch, JobRecord } from '../../../domain/job.js';
import { cappedJobError } from '../../../domain/jobError.js';

type PatchField = Exclude<keyof JobPatch, 'countAttempt'>;

/** The fields a move may set; a field absent (or undefined) in the patch stays as it was. */
const PATCH_FIELDS = Object.keys({
  status: true,
  startedAt: true,
  completedAt: true,
  error: true,
  runId: true,
  restarts: true,
} satisfies Record<PatchField, true>) as PatchField[];

/** The record after a move: the patch's fields set, an attempt counted if asked, the error capped. */
export function applyPatch(job: JobRecord, patch: JobPatch): JobRecord {
  const next: Record<string, unknown> = { ...job };
  for (const field of PATCH_FIELDS) {
    const value = patch[field];
    if (value !== undefined) next[field] = value;
  }
  if (patch.countAttempt) next.attempts = job.attempts + 1;
  // Capped in the copy already made, not in another one (withCappedError).
  next.error = cappedJobError(next.error as string);
  return next as unknown as JobRecord;
}

/** The job as stored: its error cut to MAX_JOB_ERROR_BYTES (jobError.ts). */
export const withCappedError = (job: JobRecord): JobRecord => ({ ...job, error: cappedJobError(job.error) });

/** The record as `data` keeps it: without its inputs, which have a column of their own. */
export const withoutInputs = (job: JobRecord): string => JSON.stringify({ ...job, inputs: undefined });

/** A record as a statement reads it: `data` with its inputs put back (jobStatements.ts, FULL or LISTED). */
export const parse = (data: string): JobRecord => JSON.parse(data) as JobRecord;
export const parseOutput = (data: string): JobOutput => JSON.parse(data) as JobOutput;
