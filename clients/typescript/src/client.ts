import type {
  ConcurrencyInfo,
  Credits,
  FunctionInfo,
  InputOutput,
  Job,
  JobCost,
  JobPage,
  LogPage,
  Organization,
  PushJobRequest,
  PushResult,
  StatusMessage,
  UsagePerFunction,
  UsageReport,
  Version,
} from './apiTypes.js';
import { SluiceError } from './errors.js';
import type { FileInput } from './files.js';
import { downloadFile, uploadFile } from './files.js';
import type { JobEvent, LogLine } from './jobEvents.js';
import { jobEventOf } from './jobEvents.js';
import type { StreamOptions } from './resumableEvents.js';
import { resumableEvents } from './resumableEvents.js';
import type { TransportOptions } from './transport.js';
import { Transport } from './transport.js';

/** What a push may add to the inputs (see the API reference, `POST /v2/push`). */
export interface PushOptions {
  webhooks?: PushJobRequest['webhooks'];
  env?: Record<string, string>;
  /** Seconds the job may run (the function's own timeout still applies). */
  timeout?: number;
  /** The same key within 24 hours returns the same job instead of pushing another. */
  idempotencyKey?: string;
}

/** A job's or a version's logs. */
export type LogTarget = { jobId: string } | { versionId: string };

/** A usage range, as float seconds since the epoch or Dates; the current month when absent. */
export interface UsageRange {
  start?: Date | number;
  end?: Date | number;
}

const segment = encodeURIComponent;
const functionPath = (fn: string) => fn.split('/').map(segment).join('/');
const seconds = (time: Date | number | undefined) => (time instanceof Date ? time.getTime() / 1000 : time);
const logQuery = (target: LogTarget) => ('jobId' in target ? { job_id: target.jobId } : { version_id: target.versionId });

/**
 * Sluice's API from TypeScript, in Node 20+ and browsers (fetch only). Functions are named
 * `owner/name`, or `owner/name:version` to pin a version.
 */
export class SluiceClient {
  private readonly transport: Transport;

  constructor(options: TransportOptions) {
    this.transport = new Transport(options);
  }

  /** The organization the key belongs to. */
  organization(): Promise<Organization> {
    return this.transport.json('GET', '/v2/organization');
  }

  /** Queues a job and answers at once; inputs by name, or by position as an array. */
  push(fn: string, inputs: PushJobRequest['inputs'], options: PushOptions = {}): Promise<PushResult> {
    const { idempotencyKey, ...extras } = options;
    return this.transport.json('POST', '/v2/push', {
      body: { function: fn, inputs, ...extras },
      headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey },
    });
  }

  /** Pushes a job and waits for it to end: the job, finished or not (check `status` and `error`). */
  async run(fn: string, inputs: PushJobRequest['inputs'], options: PushOptions & { signal?: AbortSignal } = {}): Promise<Job> {
    const { signal, ...pushOptions } = options;
    return this.await((await this.push(fn, inputs, pushOptions)).id, { signal });
  }

  /**
   * Waits for a job to end, however long: the service answers within minutes, and is asked again.
   * The job comes with all its outputs, however many answers they took (see `job`).
   */
  async await(jobId: string, options: { signal?: AbortSignal } = {}): Promise<Job> {
    for (;;) {
      try {
        return await this.withAllOutputs(await this.transport.json<Job>('GET', `/v2/jobs/${segment(jobId)}/await`, { signal: options.signal }), options.signal);
      } catch (error) {
        if (!(error instanceof SluiceError) || (error.status !== 408 && error.status !== 503)) throw error;
        // 503: the service is stopping or starting; give it a moment rather than asking at once.
        if (error.status === 503) await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  /**
   * The job as it is now, with all its outputs: an answer holds only so many bytes of them, and
   * says where the rest begin (`next_output_offset`), which this reads on from.
   */
  async job(jobId: string): Promise<Job> {
    return this.withAllOutputs(await this.transport.json<Job>('GET', `/v2/jobs/${segment(jobId)}`));
  }

  /** A job's statuses, outputs and log lines as they happen, then `done` with the whole job (all its outputs). */
  async *events(jobId: string, options: StreamOptions = {}): AsyncGenerator<JobEvent> {
    for await (const event of resumableEvents(this.transport, `/v2/jobs/${segment(jobId)}/events`, {}, 'done', options)) {
      const jobEvent = jobEventOf(event);
      if (jobEvent?.type === 'done') yield { type: 'done', job: await this.withAllOutputs(jobEvent.job, options.signal) };
      else if (jobEvent) yield jobEvent;
    }
  }

  /**
   * A job answer with the outputs it left out read on (GET with `offset`), the truncation fields
   * gone: what the caller sees is the whole job. The status is the first answer's.
   */
  private async withAllOutputs(first: Job, signal?: AbortSignal): Promise<Job> {
    const { outputs_truncated: _truncated, next_output_offset: _next, ...job } = first;
    const outputs = [...(job.outputs ?? [])];
    for (let offset = first.next_output_offset; offset !== undefined;) {
      const more = await this.transport.json<Job>('GET', `/v2/jobs/${segment(first.id)}`, { query: { offset }, signal });
      outputs.push(...(more.outputs ?? []));
      // An answer always holds at least one output; one that holds none ends the walk anyway.
      offset = more.outputs?.length ? more.next_output_offset : undefined;
    }
    return first.next_output_offset === undefined ? first : { ...job, outputs };
  }

  /** A job's outputs as they come (a generator function's yields one by one), until it ends. */
  async *outputs(jobId: string, options: StreamOptions = {}): AsyncGenerator<InputOutput> {
    for await (const event of this.events(jobId, options)) if (event.type === 'output') yield event.output;
  }

  /** The log lines written so far, oldest first, page after page. */
  async *logs(target: LogTarget, options: { start?: string } = {}): AsyncGenerator<LogLine> {
    // Nanoseconds pass 2^53: the next page starts one past the last line's time, counted exactly.
    let start = options.start;
    for (;;) {
      const page = await this.transport.json<LogPage>('GET', '/v2/logs', { query: { ...logQuery(target), start_time: start } });
      if (page.data.length === 0) return;
      for (const group of page.data) for (const line of group.logs) yield { ...group.labels, ...line };
      start = (BigInt(page.last_time_returned) + 1n).toString();
    }
  }

  /** Follows logs as they are written, until `signal` aborts. */
  async *followLogs(target: LogTarget, options: StreamOptions = {}): AsyncGenerator<LogLine> {
    for await (const event of resumableEvents(this.transport, '/v2/logs/events', logQuery(target), null, options)) {
      if (event.event === 'log') yield JSON.parse(event.data) as LogLine;
    }
  }

  cancel(jobId: string): Promise<StatusMessage> {
    return this.transport.json('DELETE', `/v2/jobs/${segment(jobId)}`);
  }

  /** A page of jobs, newest first: the organization's, or one function's. `next_offset` is -1 on the last page. */
  jobs(options: { function?: string; status?: Job['status']; limit?: number; offset?: number } = {}): Promise<JobPage> {
    const { function: fn, ...query } = options;
    return this.transport.json('GET', fn === undefined ? '/v2/jobs' : `/v2/functions/${functionPath(fn)}/jobs`, { query });
  }

  /** Every job, newest first, page after page. */
  async *allJobs(options: { function?: string; status?: Job['status']; pageSize?: number } = {}): AsyncGenerator<Job> {
    const { pageSize = 100, ...filter } = options;
    for (let offset = 0; offset !== -1;) {
      const page = await this.jobs({ ...filter, limit: pageSize, offset });
      yield* page.data;
      offset = page.next_offset;
    }
  }

  functions(options: { limit?: number; offset?: number } = {}): Promise<FunctionInfo[]> {
    return this.transport.json('GET', '/v2/functions', { query: options });
  }

  function(fn: string): Promise<FunctionInfo> {
    return this.transport.json('GET', `/v2/functions/${functionPath(fn)}`);
  }

  versions(fn: string): Promise<Version[]> {
    return this.transport.json('GET', `/v2/functions/${functionPath(fn)}/versions`);
  }

  /** Compute seconds and cost by machine type: the organization's, or its use of one function. */
  usage(range: UsageRange & { function?: string } = {}): Promise<UsageReport> {
    const path = range.function === undefined ? '/v2/usage' : `/v2/usage/function/${functionPath(range.function)}`;
    return this.transport.json('GET', path, { query: { start_timestamp: seconds(range.start), end_timestamp: seconds(range.end) } });
  }

  usageByFunction(range: UsageRange = {}): Promise<UsagePerFunction> {
    return this.transport.json('GET', '/v2/usage/function', { query: { start_timestamp: seconds(range.start), end_timestamp: seconds(range.end) } });
  }

  /** A job's cost, with (by default) every job it pushed. */
  jobCost(jobId: string, aggregated = true): Promise<JobCost> {
    return this.transport.json('GET', `/v2/usage/job/${segment(jobId)}`, { query: { aggregated } });
  }

  credits(): Promise<Credits> {
    return this.transport.json('GET', '/v2/usage/credits');
  }

  concurrency(): Promise<ConcurrencyInfo> {
    return this.transport.json('GET', '/v2/user/concurrency');
  }

  /** Sends a Blob or File as a job input; give the answer as the input's value. */
  upload(file: Blob, name?: string): Promise<FileInput> {
    return uploadFile(this.transport, file, name);
  }

  /** A file output's bytes (an output whose data is `{url, name}`, or its URL). */
  download(output: InputOutput | string): Promise<Response> {
    return downloadFile(this.transport, output);
  }
}
