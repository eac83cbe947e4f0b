import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { Option } from 'commander';
import { JOB_STATUSES } from '../../shared/domain/job.js';
import { parseTimestamp } from '../../shared/domain/time.js';
import type { WireJob } from '../../shared/domain/wire/job.js';
import type { ClientSettings } from '../client.js';
import { callApi, CliError } from '../client.js';
import { parseDuration } from '../duration.js';
import type { FunctionRef } from '../functionRef.js';
import { resolveFunction } from '../functionRef.js';
import type { CommandContext } from './context.js';
import { wholeNumber } from './context.js';

/** Replaying more jobs than this at once asks first (or takes --yes where nobody can answer). */
export const CONFIRM_ABOVE = 10;
/** At most this many of a function's jobs are replayed unless --limit says otherwise. */
const DEFAULT_LIMIT = 100;
/** The list page size while looking for matching jobs. */
const PAGE = 100;

interface ReplayOptions {
  toVersion?: string;
  function?: string;
  status?: string;
  since?: number;
  limit: number;
  yes?: boolean;
  json?: boolean;
}

interface PushResult {
  id: string;
}

/** `sluice replay ID` and `sluice replay --function F [--status S] [--since D]`: jobs pushed again (POST /v2/jobs/{id}/replay). */
export function registerReplayCommand(program: Command, context: CommandContext): void {
  program
    .command('replay')
    .description("push a job again with the same inputs, or each of a function's jobs that match, and print the new job ids")
    .argument('[job_id]', 'the job to replay (or give --function)')
    .option('--to-version <version>', "run on this version: latest, a version id or prefix (default: the original's version)")
    .option('--function <function>', "replay this function's jobs, newest first: owner/name, or name for one of your organization's")
    .addOption(new Option('--status <status>', 'with --function: only jobs in this status').choices(JOB_STATUSES))
    .option('--since <duration>', 'with --function: only jobs pushed within this long, e.g. 90s, 20m, 1h, 7d', parseDuration)
    .option('--limit <n>', 'with --function: at most this many', wholeNumber, DEFAULT_LIMIT)
    .option('-y, --yes', `with --function: replay more than ${CONFIRM_ABOVE} jobs without asking`)
    .option('--json', "print the service's JSON")
    .action(async (jobId: string | undefined, options: ReplayOptions) => {
      if ((jobId === undefined) === (options.function === undefined)) throw new CliError('Give a job id, or --function to replay its jobs (not both).');
      const settings = await context.settings();
      const out = context.output(options);
      if (jobId !== undefined) {
        const pushed = await replayOne(settings, jobId, options.toVersion);
        return out.json ? out.data(pushed) : out.line(pushed.id);
      }
      const fn = await resolveFunction(settings, options.function as string);
      // Oldest first: the replays queue in the order their originals did.
      const jobs = (await matchingJobs(settings, fn, options)).reverse();
      if (jobs.length === 0) return out.note('No jobs match.');
      await confirm(jobs.length, `${fn.owner}/${fn.name}`, options.yes === true);
      const replayed: { job_id: string; replay: PushResult }[] = [];
      const failures: string[] = [];
      for (const job of jobs) {
        try {
          const pushed = await replayOne(settings, job.id, options.toVersion);
          replayed.push({ job_id: job.id, replay: pushed });
          if (!out.json) out.line(`${job.id} -> ${pushed.id}`);
        } catch (error) {
          if (!(error instanceof CliError)) throw error;
          failures.push(job.id);
          out.note(`${job.id}: ${error.message}`);
        }
      }
      if (out.json) out.data(replayed);
      if (failures.length > 0) throw new CliError(`${failures.length} of ${jobs.length} replays failed.`);
    });
}

const replayOne = (settings: ClientSettings, jobId: string, version: string | undefined) =>
  callApi<PushResult>(settings, 'POST', `/v2/jobs/${encodeURIComponent(jobId)}/replay`, version === undefined ? undefined : { version });

/** The function's jobs in the status, pushed within `since`, newest first, at most `limit`: list pages until one goes past them. */
async function matchingJobs(settings: ClientSettings, fn: FunctionRef, options: ReplayOptions): Promise<WireJob[]> {
  const after = options.since === undefined ? -Infinity : (Date.now() - options.since) * 1000;
  const found: WireJob[] = [];
  for (let offset = 0; offset >= 0 && found.length < options.limit;) {
    const query = new URLSearchParams({ limit: String(PAGE), offset: String(offset), ...(options.status ? { status: options.status } : {}) });
    const page = await callApi<{ data: WireJob[]; next_offset: number }>(settings, 'GET', `${fn.path}/jobs?${query}`);
    const recent = page.data.filter((job) => job.created_at !== null && parseTimestamp(job.created_at) >= after);
    found.push(...recent.slice(0, options.limit - found.length));
    offset = recent.length < page.data.length ? -1 : page.next_offset;
  }
  return found;
}

/** Many replays at once are asked for on a terminal; elsewhere they take --yes. */
async function confirm(count: number, fn: string, yes: boolean): Promise<void> {
  if (yes || count <= CONFIRM_ABOVE) return;
  if (!process.stdin.isTTY) throw new CliError(`${count} jobs of ${fn} match; replaying more than ${CONFIRM_ABOVE} at once takes --yes.`);
  const lines = createInterface({ input: process.stdin, output: process.stderr });
  const answer = await lines.question(`Replay ${count} jobs of ${fn}? [y/N] `).finally(() => lines.close());
  if (!/^y(es)?$/i.test(answer.trim())) throw new CliError('Nothing replayed.');
}
