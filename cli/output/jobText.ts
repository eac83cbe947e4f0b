import type { WireJob } from '../../shared/domain/wire/job.js';
import type { WireOutput } from '../follow/followJob.js';
import type { LogLine } from '../follow/logPages.js';
import { formatLogTime, formatSeconds, formatWireTime, wireSpanSeconds } from './format.js';
import type { Output } from './output.js';

const STATUS_STYLE = { queued: 'yellow', processing: 'cyan', finished: 'green', error: 'red', cancelled: 'gray' } as const;

export const styledStatus = (out: Output, status: string) => out.style(STATUS_STYLE[status as keyof typeof STATUS_STYLE] ?? 'reset', status);

/**
 * An output as a person reads it: text as it is, a File as its URL, anything else as JSON.
 * Many outputs (a generator's) print one a line.
 */
export function outputText(output: WireOutput): string {
  if (Array.isArray(output)) return output.map(outputText).join('\n');
  const data = output.data as { url?: unknown } | null;
  if (output.type === 'sieve.File' && typeof data?.url === 'string') return data.url;
  return typeof output.data === 'string' ? output.data : JSON.stringify(output.data);
}

export const logText = (out: Output, line: LogLine) => `${out.style('dim', formatLogTime(line.timestamp))}  ${line.message}`;

/** Seconds from start to end, or until now while it runs; '-' before it starts. */
export function jobDuration(job: WireJob): string {
  const end = job.completed_at ?? (job.started_at ? new Date().toISOString().replace('Z', '000') : null);
  const seconds = wireSpanSeconds(job.started_at, end);
  return seconds === null ? '-' : formatSeconds(Math.max(0, seconds));
}

/** `sluice job ID`: a job's status, times, inputs, outputs, error and restarts. */
export function printJob(out: Output, job: WireJob): void {
  const field = (name: string, value: string) => out.line(`${out.style('bold', `${name}:`.padEnd(10))} ${value}`);
  field('job', job.id);
  field('function', `${job.function.owner_name}/${job.function.name}`);
  field('status', styledStatus(out, job.status));
  field('created', formatWireTime(job.created_at));
  field('started', formatWireTime(job.started_at));
  field('ended', formatWireTime(job.completed_at));
  field('duration', jobDuration(job));
  if (job.inputs && Object.keys(job.inputs).length > 0) field('inputs', JSON.stringify(job.inputs));
  if (job.error) field('error', out.style('red', job.error));
  const restarts = job.restarts ?? [];
  if (restarts.length > 0) {
    field('restarts', String(restarts.length));
    for (const restart of restarts as { timestamp?: string; type?: string; reason?: string }[]) {
      out.line(`  ${formatWireTime(restart.timestamp)}  ${restart.type ?? ''}: ${restart.reason ?? ''}`);
    }
  }
  const outputs = job.outputs ?? [];
  field('outputs', outputs.length === 0 ? '(none)' : String(outputs.length));
  for (const output of outputs) out.line(outputText(output).replace(/^/gm, '  '));
}
