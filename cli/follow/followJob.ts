import { FINAL_JOB_STATUSES } from '../../shared/domain/job.js';
import type { WireJob } from '../../shared/domain/wire/job.js';
import type { ClientSettings } from '../client.js';
import { callApi } from '../client.js';
import { EventStreamsUnavailable, followServerEvents } from './followServerEvents.js';
import type { LogLine } from './logPages.js';
import { readLogsFrom } from './logPages.js';

export type WireOutput = NonNullable<WireJob['outputs']>[number];

/** What a follower hears about a job as it happens. */
export interface JobProgress {
  onStatus?(status: WireJob['status']): void;
  onOutput?(output: WireOutput): void;
  onLog?(line: LogLine): void;
}

const POLL_MS = 500;

/**
 * Follows a job to its end and answers its final view: its event stream
 * (GET /v2/jobs/{id}/events), or, from a service without one, by polling the job and its logs.
 */
export async function followJob(settings: ClientSettings, jobId: string, progress: JobProgress): Promise<WireJob> {
  try {
    return await streamJob(settings, jobId, progress);
  } catch (error) {
    if (!(error instanceof EventStreamsUnavailable)) throw error;
    return pollJob(settings, jobId, progress);
  }
}

async function streamJob(settings: ClientSettings, jobId: string, progress: JobProgress): Promise<WireJob> {
  let final: WireJob | undefined;
  await followServerEvents(settings, `/v2/jobs/${encodeURIComponent(jobId)}/events`, (event) => {
    const data = JSON.parse(event.data) as unknown;
    if (event.event === 'status') progress.onStatus?.((data as { status: WireJob['status'] }).status);
    else if (event.event === 'output') progress.onOutput?.(data as WireOutput);
    else if (event.event === 'log') progress.onLog?.(data as LogLine);
    else if (event.event === 'done') final = data as WireJob;
    return final !== undefined;
  });
  return final as WireJob;
}

async function pollJob(settings: ClientSettings, jobId: string, progress: JobProgress): Promise<WireJob> {
  const path = `/v2/jobs/${encodeURIComponent(jobId)}`;
  let status = '';
  let outputsSeen = 0;
  let logsFrom = '0';
  for (;;) {
    const job = await callApi<WireJob>(settings, 'GET', path);
    // Logs first: a job's lines come before the outputs and the status that end it.
    logsFrom = await readLogsFrom(settings, `job_id=${encodeURIComponent(jobId)}`, logsFrom, (line) => progress.onLog?.(line));
    const outputs = job.outputs ?? [];
    for (const output of outputs.slice(outputsSeen)) progress.onOutput?.(output);
    outputsSeen = outputs.length;
    if (job.status !== status) {
      status = job.status;
      progress.onStatus?.(job.status);
    }
    if (FINAL_JOB_STATUSES.includes(job.status)) return job;
    await new Promise((resume) => setTimeout(resume, POLL_MS));
  }
}
