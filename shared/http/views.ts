import { serializeFunction, serializeTruncatedFunction } from '../domain/wire/function.js';
import { serializeVersion } from '../domain/wire/version.js';
import type { VersionRecord } from '../domain/version.js';
import { serializeJob } from '../domain/wire/job.js';
import type { ListedPage } from '../services/jobReads.js';
import type { JobView } from '../services/jobViews.js';
import { pageWithNext } from './schemas.js';
import { ANSWER_BYTES, answerBytes, leadingFit } from '../domain/answerBudget.js';
import type { FunctionView } from '../services/functionService.js';
import type { Services } from '../services/services.js';
import { capacityWarning } from '../services/capacityWarning.js';

/** How routes print resources: the wire serialisers plus what the services know live (workers). */
export async function functionView(services: Services, view: FunctionView, truncate: boolean) {
  if (truncate) return serializeTruncatedFunction(view.fn);
  return serializeFunction(view.fn, await versionView(services, view.latestVersion, true));
}

export async function versionView(services: Services, version: VersionRecord, includePythonVersion = false) {
  const { compute } = services;
  return serializeVersion(version, {
    currentWorkers: await compute.currentWorkers(version.id),
    warning: await capacityWarning(compute, version),
    includePythonVersion,
  });
}

export function jobView(view: JobView) {
  return serializeJob(view.job, view.outputs, view.children, view);
}

/**
 * A Job page from one more row than the page holds (see pageWithNext), cut short where its jobs
 * would pass the answer's budget (answerBudget.ts: its values are bounded by listPreview.ts, but
 * not its errors and envelopes, nor the escaping Lambda counts); `next_offset` then goes on from there.
 */
export async function jobPage(listed: ListedPage, page: { limit: number; offset: number }) {
  const { data, next_offset } = pageWithNext(listed.views, page.limit, page.offset);
  // Replays are shown on one job's view only: AWS's list indexes do not hold them.
  const jobs = data.map((view) => jobView({ ...view, job: { ...view.job, replays: undefined } }));
  const kept = leadingFit(
    jobs.map((job) => answerBytes(job) + 1),
    ANSWER_BYTES,
  );
  const answer = kept < jobs.length ? { data: jobs.slice(0, kept), next_offset: page.offset + kept } : { data: jobs, next_offset };
  // The next page, at next_offset, resumes after this one's last job.
  if (answer.next_offset !== -1) await listed.ended(answer.data.length);
  return answer;
}
