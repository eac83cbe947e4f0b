// Replays (POST /v2/jobs/{id}/replay, docs/api.md "Replay"): a job pushed again with what its
// original push asked for. A job record keeps what the push and its version made together (the
// merged environment, the shorter time limit); these rules take the push's part back out, so that
// a replay to another version gets that version's own defaults.
import { fileMarkersIn } from './fileOutputs.js';
import { isFileType } from './functionMetadata.js';
import type { JobRecord } from './job.js';
import type { VersionRecord } from './version.js';

/** How many replays a job's view lists: the latest ones. */
export const MAX_LISTED_REPLAYS = 20;

/** The variables the push set: those that are not the version's own default (a value equal to it is the same either way). */
export function pushedEnvironment(job: Pick<JobRecord, 'env'>, version: Pick<VersionRecord, 'environmentVariables'>): Record<string, string> {
  const defaults = new Map(version.environmentVariables.map((variable) => [variable.name, variable.default]));
  return Object.fromEntries(Object.entries(job.env).filter(([name, value]) => defaults.get(name) !== value));
}

/** The push's `timeout`: the job's limit when it is shorter than the version's own, else none. */
export function pushedTimeout(job: Pick<JobRecord, 'timeLimitSeconds'>, version: Pick<VersionRecord, 'timeoutSeconds'>): number | undefined {
  const limit = job.timeLimitSeconds ?? null;
  return limit === null || limit === (version.timeoutSeconds ?? null) ? undefined : limit;
}

/**
 * The uploads (POST /v2/uploads) the job's File inputs name, by input: a File input given as
 * `{"upload_id", "name"}`, and File markers nested in any input. A replay reads the same uploads.
 */
export function uploadsNamed(inputs: JobRecord['inputs'], version: Pick<VersionRecord, 'inputs'>): { input: string; uploadId: string }[] {
  const fileInputs = new Set(version.inputs.filter((input) => isFileType(input.type)).map((input) => input.name));
  return Object.entries(inputs).flatMap(([input, value]) => {
    const whole = fileInputs.has(input) && typeof value === 'object' && value !== null && !Array.isArray(value);
    const sources: { upload_id?: unknown }[] = whole ? [value] : fileMarkersIn(value);
    return sources.flatMap((source) => (typeof source.upload_id === 'string' ? [{ input, uploadId: source.upload_id }] : []));
  });
}
