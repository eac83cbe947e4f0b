import { badRequest } from './errors.js';
import type { JobStatus } from './job.js';
import { JOB_STATUSES } from './job.js';

/**
 * Where a job's event stream stands: the last status sent, how many outputs and the last log
 * line's time. Every event's id is the cursor after it, so Last-Event-ID resumes without repeats.
 */
export interface JobStreamCursor {
  status: JobStatus | null;
  outputs: number;
  logNs: bigint;
}

export const formatJobCursor = (cursor: JobStreamCursor) => `${cursor.status ?? 'none'}.${cursor.outputs}.${cursor.logNs}`;

/** The cursor a Last-Event-ID names; from the start without one. */
export function parseJobCursor(lastEventId: string | undefined): JobStreamCursor {
  if (lastEventId === undefined || lastEventId === '') return { status: null, outputs: 0, logNs: -1n };
  const [status, outputs, logNs, ...rest] = lastEventId.split('.');
  const knownStatus = status === 'none' || (JOB_STATUSES as readonly string[]).includes(status ?? '');
  // An output count past what a number holds exactly is no count a stream sent (the store refuses it).
  if (!knownStatus || rest.length > 0 || !/^\d+$/.test(outputs ?? '') || !Number.isSafeInteger(Number(outputs)) || !/^-?\d+$/.test(logNs ?? ''))
    throw unknownId(lastEventId);
  return { status: status === 'none' ? null : (status as JobStatus), outputs: Number(outputs), logNs: BigInt(logNs as string) };
}

/** A log stream's cursor is the last line's time (nanoseconds); the stream's start time without one. */
export function parseLogCursor(lastEventId: string | undefined, startNs: bigint): bigint {
  if (lastEventId === undefined || lastEventId === '') return startNs - 1n;
  if (!/^\d+$/.test(lastEventId)) throw unknownId(lastEventId);
  return BigInt(lastEventId);
}

const unknownId = (id: string) =>
  badRequest(`Last-Event-ID "${id}" is not an id this stream sends: send back the id: of the last event received, or no Last-Event-ID to start over.`);
