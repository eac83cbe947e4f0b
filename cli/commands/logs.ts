import type { Command } from 'commander';
import type { WireVersion } from '../../shared/domain/wire/version.js';
import type { ClientSettings } from '../client.js';
import { callApi } from '../client.js';
import { followJob } from '../follow/followJob.js';
import { followLogs } from '../follow/followLogs.js';
import type { LogLine } from '../follow/logPages.js';
import { readLogsFrom } from '../follow/logPages.js';
import { looksLikeId, resolveFunction } from '../functionRef.js';
import { logText } from '../output/jobText.js';
import type { CommandContext } from './context.js';

/**
 * `sluice logs JOB|FUNCTION [-f]`: a job's lines (what its function printed), or a function's
 * latest version's (its build and its replicas' setup). `-f` follows: a job's until it ends,
 * a version's until Ctrl+C.
 */
export function registerLogCommands(program: Command, context: CommandContext): void {
  program
    .command('logs')
    .description("a job's log, or a function's (its latest version's build and setup lines)")
    .argument('<job_or_function>', "a job id, or owner/name (name for one of your organization's)")
    .option('-f, --follow', "keep printing new lines: a job's until it ends, a function's until Ctrl+C")
    .option('--version-id <id>', "a function's version other than its latest")
    .option('--json', 'one JSON object a line: message, timestamp (ns) and labels')
    .action(async (target: string, options: { follow?: boolean; versionId?: string; json?: boolean }) => {
      const settings = await context.settings();
      const out = context.output(options);
      const print = (line: LogLine) => out.line(out.json ? JSON.stringify(line) : logText(out, line));
      if (looksLikeId(target)) {
        if (options.follow) await followJob(settings, target, { onLog: print });
        else await readLogsFrom(settings, `job_id=${encodeURIComponent(target)}`, '0', print);
        return;
      }
      const query = `version_id=${encodeURIComponent(options.versionId ?? (await latestVersionId(settings, target)))}`;
      if (options.follow) await followLogs(settings, query, print);
      else await readLogsFrom(settings, query, '0', print);
    });
}

async function latestVersionId(settings: ClientSettings, ref: string): Promise<string> {
  const fn = await resolveFunction(settings, ref);
  return (await callApi<WireVersion>(settings, 'GET', `${fn.path}/versions/latest`)).id;
}
