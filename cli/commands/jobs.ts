import type { Command } from 'commander';
import { Option } from 'commander';
import { JOB_STATUSES } from '../../shared/domain/job.js';
import type { WireJob } from '../../shared/domain/wire/job.js';
import type { ClientSettings } from '../client.js';
import { callApi } from '../client.js';
import { resolveFunction } from '../functionRef.js';
import { formatWireTime } from '../output/format.js';
import { jobDuration, printJob, styledStatus } from '../output/jobText.js';
import type { CommandContext } from './context.js';
import { wholeNumber } from './context.js';

/** `sluice jobs`, `sluice job ID`, `sluice cancel ID`. */
export function registerJobCommands(program: Command, context: CommandContext): void {
  program
    .command('jobs')
    .description("list jobs, newest first: the organization's, or one function's")
    .argument('[function]', "owner/name, or name for one of your organization's")
    .addOption(new Option('--status <status>', 'only jobs in this status').choices(JOB_STATUSES))
    .option('--limit <n>', 'at most this many', wholeNumber, 20)
    .option('--offset <n>', 'skip this many first', wholeNumber, 0)
    .option('--json', "print the service's JSON")
    .action(async (ref: string | undefined, options: { status?: string; limit: number; offset: number; json?: boolean }) => {
      const settings = await context.settings();
      const base = ref === undefined ? '/v2/jobs' : `${(await resolveFunction(settings, ref)).path}/jobs`;
      const query = new URLSearchParams({
        limit: String(options.limit),
        offset: String(options.offset),
        ...(options.status ? { status: options.status } : {}),
      });
      const page = await callApi<{ data: WireJob[]; next_offset: number }>(settings, 'GET', `${base}?${query}`);
      const out = context.output(options);
      if (out.json) return out.data(page);
      if (page.data.length === 0) return out.note('No jobs.');
      out.table(
        ['ID', 'FUNCTION', 'STATUS', 'CREATED', 'DURATION'],
        page.data.map((job) => [
          job.id,
          `${job.function.owner_name}/${job.function.name}`,
          styledStatus(out, job.status),
          formatWireTime(job.created_at),
          jobDuration(job),
        ]),
      );
      if (page.next_offset > 0 && out.tty) out.note(out.style('dim', `More: --offset ${page.next_offset}`));
    });

  program
    .command('job')
    .description("a job's status, times, inputs, outputs, error and restarts")
    .argument('<job_id>')
    .option('--json', "print the service's JSON")
    .action(async (jobId: string, options: { json?: boolean }) => {
      const job = await getJob(await context.settings(), jobId);
      const out = context.output(options);
      if (out.json) return out.data(job);
      printJob(out, job);
    });

  program
    .command('cancel')
    .description('cancel a job that has not ended')
    .argument('<job_id>')
    .action(async (jobId: string) => {
      const { message } = await callApi<{ message: string }>(await context.settings(), 'DELETE', `/v2/jobs/${encodeURIComponent(jobId)}`);
      context.output({}).line(message);
    });
}

export const getJob = (settings: ClientSettings, jobId: string) => callApi<WireJob>(settings, 'GET', `/v2/jobs/${encodeURIComponent(jobId)}`);
