/**
 * How much one HTTP answer may carry, the same in both modes so that a client reads a job the
 * same way in both. On AWS an answer is a Lambda result, refused past 6 MB: its JSON, in which
 * the body is a string, so each `"` and `\` of the body counts twice. Sizes here are counted
 * that way (answerBytes), whatever the mode. A job's outputs past the budget are read on with
 * `offset` (docs/api.md, "Large jobs").
 */

/** Lambda's limit on a synchronous answer (its JSON); every budget below stays well under it. */
export const LAMBDA_ANSWER_LIMIT_BYTES = 6 * 1024 * 1024;

/**
 * The values one job's answer carries (GET /v2/jobs/{id}, its await, a stream's `done`): its
 * inputs, its children and its outputs from the offset, in order, until the next output would
 * pass it. At least one output always comes (one is at most 1 MB of JSON, SLUICE_MAX_OUTPUT_MB),
 * so a reader always gets on.
 */
export const JOB_ANSWER_VALUES_BYTES = 4 * 1024 * 1024;

/**
 * Of those, the most the inputs take: each input inline, in order, while they fit; the rest are
 * null. With the one output always shown (at most 2 MB as counted), 5 MB at worst.
 */
export const JOB_ANSWER_INPUTS_BYTES = 3 * 1024 * 1024;

/** A whole answer of many items: a list page, a buffered (Lambda) stream's events. */
export const ANSWER_BYTES = 5 * 1024 * 1024;

/** Bytes a text takes as an answer's body in Lambda's JSON (escaped once more, less its quotes). */
export const textAnswerBytes = (text: string): number => Buffer.byteLength(JSON.stringify(text), 'utf8') - 2;

/** Bytes a value's JSON takes as (part of) an answer's body, counted as Lambda counts it. */
export const answerBytes = (value: unknown): number => textAnswerBytes(JSON.stringify(value) ?? 'null');

/**
 * How many of a job's outputs (their stored sizes, in order) a store reads for one answer: those
 * within `maxBytes`, the one that passes it, and one more, which tells the reader more follow.
 * The answer keeps fewer (leadingFit, on sizes as printed, never smaller than stored).
 */
export function outputsForAnswer(sizes: number[], maxBytes: number): number {
  let used = 0;
  let index = 0;
  for (const size of sizes) {
    used += size;
    if (used > maxBytes) return Math.min(sizes.length, index + 2);
    index += 1;
  }
  return sizes.length;
}

/**
 * How many of the leading items fit `budget` together (`sizes` in answer bytes): at least one
 * when there is one, so that a reader continuing from the next always moves on.
 */
export function leadingFit(sizes: number[], budget: number): number {
  let used = 0;
  let index = 0;
  for (const size of sizes) {
    used += size;
    if (used > budget) return Math.max(index, 1);
    index += 1;
  }
  return sizes.length;
}
