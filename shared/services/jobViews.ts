import { answerBytes, JOB_ANSWER_INPUTS_BYTES, JOB_ANSWER_VALUES_BYTES, leadingFit } from '../domain/answerBudget.js';
import { withSignedFileUrls } from '../domain/fileOutputs.js';
import type { ChildJob, JobOutput, JobRecord } from '../domain/job.js';
import { jsonBytes, LIST_MAX_CHILDREN, LIST_MAX_OUTPUTS, LIST_PAGE_INLINE_BYTES, type ListedOutput } from '../domain/listPreview.js';
import { serializeOutput } from '../domain/wire/job.js';
import type { Artifacts } from '../ports/artifacts.js';
import type { Store } from '../ports/store.js';

export interface JobView {
  job: JobRecord;
  /** For one job, from an offset while the answer's budget lasts (answerBudget.ts); on a list page, as listed (listPreview.ts). */
  outputs: (JobOutput | ListedOutput)[];
  /** All of them for one job; on a list page, the first LIST_MAX_CHILDREN. */
  children: ChildJob[];
  /** On a list page: the job has more children than it shows. */
  childrenCut?: boolean;
  /** For one job: it has outputs past those shown, the next one at this offset. */
  nextOutputOffset?: number;
  /** For one job: inputs past the budget are shown null. */
  inputsCut?: boolean;
}

/**
 * How a job is shown: alone (GET, await, a stream's `done`), bounded by the answer budget so
 * that it fits a Lambda answer however much it holds; or on a list page, by the list's preview.
 * File outputs' URLs are signed at each read.
 */
export class JobViews {
  constructor(private readonly deps: { store: Store; artifacts: Artifacts }) {}

  /**
   * One job with its outputs from `outputOffset`: its inputs first (those past their share are
   * null), its children, then outputs in order until the next would pass the budget, and where
   * to read on when some are left.
   */
  async one(job: JobRecord, outputOffset: number): Promise<JobView> {
    const { store } = this.deps;
    const { inputs, bytes: inputBytes, cut: inputsCut } = boundedInputs(job.inputs);
    // The store reads only what the inputs leave room for (children are read meanwhile, and take their share below).
    const [stored, children] = await Promise.all([
      store.jobs.listOutputs(job.id, outputOffset, JOB_ANSWER_VALUES_BYTES - inputBytes),
      store.jobs.listChildSummaries(job.id),
    ]);
    const fitted = await this.fitted(job.id, stored, outputOffset, JOB_ANSWER_VALUES_BYTES - inputBytes - answerBytes(children));
    return { job: inputsCut ? { ...job, inputs } : job, ...fitted, children, ...(inputsCut ? { inputsCut } : {}) };
  }

  /**
   * A list page's jobs (listPreview.ts): their values inline while the page's budget lasts, one
   * job after another, each taking what those before it left; the rest are null.
   */
  async listed(jobs: JobRecord[]): Promise<JobView[]> {
    let budget = LIST_PAGE_INLINE_BYTES;
    const views: JobView[] = [];
    for (const job of jobs) {
      const inputBytes = jsonBytes(job.inputs);
      const fits = inputBytes <= budget;
      if (fits) budget -= inputBytes;
      const inputs = fits ? job.inputs : Object.fromEntries(Object.keys(job.inputs).map((name) => [name, null]));
      // One child more than a list shows: whether there are more.
      const [outputs, children] = await Promise.all([
        this.deps.store.jobs.listOutputPreviews(job.id, { budget, max: LIST_MAX_OUTPUTS }),
        this.deps.store.jobs.listChildSummaries(job.id, LIST_MAX_CHILDREN + 1),
      ]);
      for (const output of outputs) if (!output.omitted) budget -= output.bytes ?? jsonBytes(output.data);
      const signed = await this.withSignedFileUrls(job.id, outputs);
      const childrenCut = children.length > LIST_MAX_CHILDREN;
      views.push({ job: { ...job, inputs }, outputs: signed, children: children.slice(0, LIST_MAX_CHILDREN), ...(childrenCut ? { childrenCut } : {}) });
    }
    return views;
  }

  /**
   * Outputs from `offset` within one job answer's budget (at least one), their File URLs signed,
   * and where to read on: what a stream reads each time, without the job's inputs or children.
   */
  async outputsFrom(jobId: string, offset: number): Promise<Pick<JobView, 'outputs' | 'nextOutputOffset'>> {
    return this.fitted(jobId, await this.deps.store.jobs.listOutputs(jobId, offset, JOB_ANSWER_VALUES_BYTES), offset, JOB_ANSWER_VALUES_BYTES);
  }

  /**
   * The stored outputs from `offset` that fit `budget` as the answer prints them (each with the
   * comma between; at least one), their File URLs signed, and the offset after them if some are left.
   */
  private async fitted(jobId: string, stored: JobOutput[], offset: number, budget: number): Promise<Pick<JobView, 'outputs' | 'nextOutputOffset'>> {
    const outputs = await this.withSignedFileUrls(jobId, stored);
    const shown = leadingFit(
      outputs.map((output) => answerBytes(serializeOutput(output)) + 1),
      budget,
    );
    return { outputs: outputs.slice(0, shown), ...(shown < outputs.length ? { nextOutputOffset: Math.max(0, offset) + shown } : {}) };
  }

  /** The job's outputs with their File URLs signed now (fileOutputs.ts). */
  withSignedFileUrls<Output extends JobOutput>(jobId: string, outputs: Output[]): Promise<Output[]> {
    return withSignedFileUrls(jobId, outputs, (slot, name) => this.deps.artifacts.signedOutputFileUrl(jobId, slot, name));
  }
}

/** A job's inputs within their share of the budget: each inline, in order, while they fit; the rest null. */
function boundedInputs(all: Record<string, unknown>): { inputs: Record<string, unknown>; bytes: number; cut: boolean } {
  const whole = answerBytes(all);
  if (whole <= JOB_ANSWER_INPUTS_BYTES) return { inputs: all, bytes: whole, cut: false };
  let bytes = 0;
  const inputs: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(all)) {
    // The name, its quotes, colon and comma beside the value.
    const size = answerBytes(name) + answerBytes(value) + 2;
    const fits = bytes + size <= JOB_ANSWER_INPUTS_BYTES;
    inputs[name] = fits ? value : null;
    bytes += fits ? size : answerBytes(name) + 6;
  }
  return { inputs, bytes, cut: true };
}
