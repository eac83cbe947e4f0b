import { SseParser } from '../lib/sse.js';
import { api, headersWithKey } from './client.js';
import type { InputOutput, Job, JobStatus, LogLine, LogPage } from './types.js';
import { nextLogStart } from '../lib/logCursor.js';

export interface JobProgress {
  status?(status: JobStatus): void;
  output?(output: InputOutput | InputOutput[]): void;
  log?(line: LogLine): void;
  /** The whole job, as it stands at the end. */
  done(job: Job): void;
  /** How the page is being kept up to date: `stream` (the SSE route) or `polling`. */
  mode?(mode: 'stream' | 'polling'): void;
}

const POLL_MS = 1000;
const RECONNECT_MS = 1000;
const FINAL: JobStatus[] = ['finished', 'error', 'cancelled'];

/**
 * Follows a running job: through GET /v2/jobs/{id}/events (Server-Sent Events over fetch, since
 * EventSource cannot send the API key), reconnecting with Last-Event-ID whenever a stream ends
 * without `done` (on AWS each stream ends after about 25 s); where the service has no such
 * route (404), by polling the job. Returns a function that stops following.
 */
export function followJob(jobId: string, progress: JobProgress): () => void {
  const controller = new AbortController();
  void run(jobId, progress, controller.signal).catch((error: unknown) => {
    if (!controller.signal.aborted) console.warn('following the job failed', error);
  });
  return () => controller.abort();
}

async function run(jobId: string, progress: JobProgress, signal: AbortSignal): Promise<void> {
  let lastEventId: string | null = null;
  for (;;) {
    const headers = headersWithKey({ Accept: 'text/event-stream' });
    if (lastEventId !== null) headers['Last-Event-ID'] = lastEventId;
    let response: Response;
    try {
      response = await fetch(`/v2/jobs/${encodeURIComponent(jobId)}/events`, { headers, signal });
    } catch {
      if (signal.aborted) return;
      await pause(RECONNECT_MS, signal);
      continue;
    }
    if (response.status === 404 || response.status === 405 || !response.body || !response.headers.get('content-type')?.includes('text/event-stream')) {
      progress.mode?.('polling');
      return poll(jobId, progress, signal);
    }
    progress.mode?.('stream');
    const ended = await readStream(response.body, progress, signal, (id) => (lastEventId = id));
    if (ended || signal.aborted) return;
    await pause(RECONNECT_MS, signal);
  }
}

/** Reads one stream; true once `done` arrived. */
async function readStream(body: ReadableStream<Uint8Array>, progress: JobProgress, signal: AbortSignal, seen: (id: string) => void): Promise<boolean> {
  const parser = new SseParser();
  const decoder = new TextDecoder();
  const reader = body.getReader();
  signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined), { once: true });
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return false;
      for (const event of parser.feed(decoder.decode(value, { stream: true }))) {
        if (event.id !== null) seen(event.id);
        const data = JSON.parse(event.data) as unknown;
        if (event.event === 'status') progress.status?.((data as { status: JobStatus }).status);
        else if (event.event === 'output') progress.output?.(data as InputOutput);
        else if (event.event === 'log') progress.log?.(data as LogLine);
        else if (event.event === 'done') {
          progress.done(data as Job);
          return true;
        }
      }
    }
  } catch {
    return false; // the connection dropped: reconnect from the last id
  }
}

/** Without the streaming route: the job every second, its new outputs and log lines. */
async function poll(jobId: string, progress: JobProgress, signal: AbortSignal): Promise<void> {
  let outputsSeen = 0;
  let logsFrom = '0';
  let lastStatus: JobStatus | null = null;
  while (!signal.aborted) {
    const job = await api<Job>(`/v2/jobs/${encodeURIComponent(jobId)}?offset=${outputsSeen}`, { signal });
    if (job.status !== lastStatus) progress.status?.((lastStatus = job.status));
    for (const output of job.outputs ?? []) progress.output?.(output);
    outputsSeen += job.outputs?.length ?? 0;
    const logs = await api<LogPage>(`/v2/logs?job_id=${encodeURIComponent(jobId)}&start_time=${logsFrom}`, { signal });
    for (const group of logs.data) for (const line of group.logs) progress.log?.(line);
    logsFrom = nextLogStart(logs, logsFrom);
    if (FINAL.includes(job.status)) {
      progress.done(await api<Job>(`/v2/jobs/${encodeURIComponent(jobId)}`, { signal }));
      return;
    }
    await pause(POLL_MS, signal);
  }
}

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
