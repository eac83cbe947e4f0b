import type { JobOutput } from './job.js';

/**
 * What a list page carries of a job's values (inputs, outputs): each one inline only while it is
 * small, so that a page stays small and quick to build whatever its jobs hold. A larger value is
 * left out (null) and never read from the store; GET /v2/jobs/{id} returns it.
 */
export const LIST_INLINE_BYTES = 64 * 1024;
/** The most bytes of values one page inlines, all its jobs together. */
export const LIST_PAGE_INLINE_BYTES = 4 * 1024 * 1024;
/** A list shows at most this many outputs of a job (a generator may yield thousands). */
export const LIST_MAX_OUTPUTS = 100;
/** A list shows at most this many children of a job (a workflow may push thousands); GET /v2/jobs/{id} shows them all. */
export const LIST_MAX_CHILDREN = 100;

/** Bytes of a value's JSON (UTF-8). */
export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? 'null', 'utf8');

/** An output as a list reads it: its data is null when left out; `bytes` is its data's size, where stored. */
export interface ListedOutput extends JobOutput {
  omitted: boolean;
  bytes: number | null;
}

/** What a list reads of a job's outputs: at most `max`, each inlined while it fits `budget` (bytes). */
export interface OutputPreviewLimits {
  budget: number;
  max: number;
}

/**
 * Which values inline, in order: each of at most LIST_INLINE_BYTES while the running total stays
 * within the budget. The stores decide from sizes stored beside the values, before reading them.
 */
export function inlinedBySize(sizes: number[], budget: number): boolean[] {
  let left = budget;
  return sizes.map((bytes) => {
    if (bytes > LIST_INLINE_BYTES || bytes > left) return false;
    left -= bytes;
    return true;
  });
}

/** Inputs as a list shows them, made when the job is stored: each value inline while small, else null. */
export function inputsPreview(inputs: Record<string, unknown>): Record<string, unknown> {
  const entries = Object.entries(inputs);
  const inline = inlinedBySize(
    entries.map(([, value]) => jsonBytes(value)),
    LIST_INLINE_BYTES,
  );
  return Object.fromEntries(entries.map(([name, value], index) => [name, inline[index] ? value : null]));
}
