import { isFinalJobStatus } from '../domain/job.js';
import type { LogEntry } from '../domain/log.js';
import { jobLogStream } from '../domain/log.js';
import { formatJobCursor, parseJobCursor, parseLogCursor } from '../domain/streamCursor.js';
import { serializeJob, serializeOutput } from '../domain/wire/job.js';
import type { JobEvents } from '../ports/jobEvents.js';
import type { LogFeed } from '../ports/logFeed.js';
import type { LogQuery, Store } from '../ports/store.js';
import type { EventStream, StreamEvent, StreamWakeups } from './eventStream.js';
import { follow } from './eventStream.js';
import { StreamSlots } from './streamSlots.js';
import type { JobReads } from './jobReads.js';
import type { LogService } from './logService.js';
import type { Principal } from './principal.js';

export interface EventStreamsDeps {
  store: Store;
  jobs: JobReads;
  logs: LogService;
  events: JobEvents;
  logFeed: LogFeed;
  /** How often a stream reads the store with nothing to wake it (AWS); undefined: only when woken (local). */
  pollMs: number | undefined;
}

/** Log lines per read: a stream with a long past catches up page by page. */
const LOG_PAGE = 1000;
const END_OF_TIME = 2n ** 63n - 1n;

/**
 * The Server-Sent Event streams (docs/api.md, "Streaming"): a job's statuses, outputs and logs
 * until it ends, and a log stream followed. Each reads the store, the source of truth, from its
 * cursor, and sleeps until an event wakes it: a job's moves (JobEvents) and stored log lines
 * (LogFeed) locally, the poll interval on AWS. Ownership is checked before the stream opens,
 * so another organization's job answers 404 like GET does.
 */
export class EventStreams {
  /** Each organization's open streams, bounded (streamSlots.ts). */
  readonly slots = new StreamSlots();

  constructor(private readonly deps: EventStreamsDeps) {}

  async job(principal: Principal, jobId: string, lastEventId: string | undefined): Promise<EventStream> {
    const cursor = parseJobCursor(lastEventId);
    const { job } = await this.deps.jobs.get(principal, jobId, 0);
    const stream = jobLogStream(job.id);
    const wakeups: StreamWakeups = {
      pollMs: this.deps.pollMs,
      subscribe: (wake) => {
        const fromJob = this.deps.events.subscribe(job.id, wake);
        const fromLogs = this.deps.logFeed.subscribe((entries) => entries.some((entry) => entry.stream === stream) && wake());
        return () => {
          fromJob();
          fromLogs();
        };
      },
    };
    const event = (name: string, data: unknown): StreamEvent => ({ id: formatJobCursor(cursor), event: name, data });
    const statusEvent = (status: typeof cursor.status) => {
      cursor.status = status;
      return event('status', { job_id: job.id, status });
    };
    // Its status alone (a stream polls every second on AWS); a job gone meanwhile is read the
    // checked way, which answers 404.
    const statusNow = async () => (await this.deps.store.jobs.statusOf(job.id)) ?? (await this.deps.jobs.get(principal, job.id, 0)).job.status;
    const readNew = async () => {
      // The status first: once it reads final, the outputs and lines read after it are all there are.
      const status = await statusNow();
      const ended = isFinalJobStatus(status);
      const events: StreamEvent[] = [];
      if (!ended && status !== cursor.status) events.push(statusEvent(status));
      const lines = await this.linesAfter({ stream, organizationId: principal.organizationId }, cursor.logNs);
      for (const line of lines) {
        cursor.logNs = line.timeNs;
        events.push(event('log', { message: line.message, timestamp: line.timeNs.toString() }));
      }
      const view = await this.deps.jobs.outputsFrom(job.id, cursor.outputs);
      for (const output of view.outputs) {
        cursor.outputs += 1;
        events.push(event('output', serializeOutput(output)));
      }
      // A read holds one answer's worth of outputs (answerBudget.ts): the rest come with the next.
      const more = lines.length === LOG_PAGE || view.nextOutputOffset !== undefined;
      if (!ended || more) return { events, ended: false, more };
      if (status !== cursor.status) events.push(statusEvent(status));
      const whole = await this.deps.jobs.get(principal, job.id, 0);
      events.push(event('done', serializeJob(whole.job, whole.outputs, whole.children, whole)));
      return { events, ended: true };
    };
    return this.slots.hold(principal.organizationId, (signal) => follow(wakeups, signal, readNew));
  }

  /** A job's or a version's lines (or all the organization's), followed: it never ends by itself. */
  async logs(principal: Principal, request: { jobId?: string; versionId?: string; startNs: bigint }, lastEventId: string | undefined): Promise<EventStream> {
    const query = { stream: await this.deps.logs.streamOf(principal, request), organizationId: principal.organizationId };
    const follows = (entry: LogEntry) => (query.stream === undefined ? entry.organizationId === query.organizationId : entry.stream === query.stream);
    let cursor = parseLogCursor(lastEventId, request.startNs);
    const wakeups: StreamWakeups = {
      pollMs: this.deps.pollMs,
      subscribe: (wake) => this.deps.logFeed.subscribe((entries) => entries.some(follows) && wake()),
    };
    const readNew = async () => {
      const lines = await this.linesAfter(query, cursor);
      const events = lines.map((line): StreamEvent => {
        cursor = line.timeNs;
        return { id: line.timeNs.toString(), event: 'log', data: logLine(line) };
      });
      return { events, ended: false, more: lines.length === LOG_PAGE };
    };
    return this.slots.hold(principal.organizationId, (signal) => follow(wakeups, signal, readNew));
  }

  private linesAfter(query: Pick<LogQuery, 'stream' | 'organizationId'>, afterNs: bigint): Promise<LogEntry[]> {
    return this.deps.store.logs.query({ ...query, startNs: afterNs + 1n, endNs: END_OF_TIME, limit: LOG_PAGE });
  }
}

/** A line as GET /v2/logs prints it, its labels beside it. */
function logLine(line: LogEntry) {
  return {
    message: line.message,
    timestamp: line.timeNs.toString(),
    stage: line.stage,
    run_id: line.runId,
    job_id: line.jobId,
    organization_id: line.organizationId,
    function_id: line.functionId,
  };
}
