import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { WireVersion } from '../../shared/domain/wire/version.js';
import type { ClientSettings } from '../client.js';
import { callApi, CliError } from '../client.js';
import { parseDuration } from '../duration.js';
import { followJob } from '../follow/followJob.js';
import type { FunctionRef } from '../functionRef.js';
import { resolveFunction } from '../functionRef.js';
import { readInputs } from '../inputs.js';
import { logText, outputText, styledStatus } from '../output/jobText.js';
import type { CommandContext } from './context.js';
import { wholeNumber } from './context.js';

interface PushOptions {
  input: string[];
  inputsJson?: string;
  env: string[];
  json?: boolean;
  priority?: number;
  startTimeout?: number;
  retries?: number;
}

interface PushResult {
  id: string;
  status: string;
}

/** `sluice push` (answers the job id at once) and `sluice run` (pushes, then follows the job to its end). */
export function registerRunCommands(program: Command, context: CommandContext): void {
  const pushOptions = (command: Command) =>
    command
      .argument('<function>', "owner/name, or name for one of your organization's")
      .option('-i, --input <name=value>', 'an input; repeat for each (a File input takes a local path or a URL)', collect, [])
      .option('--inputs-json <json>', 'all inputs as a JSON object, @file to read it from a file, @- from stdin')
      .option('-e, --env <NAME=value>', "an environment variable for this job (overrides the function's)", collect, [])
      .option('--priority <n>', 'higher starts first among your queued jobs (-10 to 10, default 0)', integer)
      .option('--start-timeout <seconds>', 'cancel the job if it has not started this long after the push (seconds, or 90s, 10m, 2h)', seconds)
      .option('--retries <n>', 'run the job again this many times if it raises (at most 10)', wholeNumber)
      .option('--json', "print the service's JSON");

  pushOptions(program.command('push').description('push a job and print its id (Sieve: fn.push)')).action(async (ref: string, options: PushOptions) => {
    const settings = await context.settings();
    const pushed = await push(settings, await resolveFunction(settings, ref), options);
    const out = context.output(options);
    if (out.json) return out.data(pushed);
    out.line(pushed.id);
  });

  pushOptions(program.command('run').description('push a job and follow it: its outputs on stdout as they come, its logs and status on stderr (Sieve: fn.run)'))
    .option('-q, --quiet', 'outputs only: no logs, no status lines')
    .action(async (ref: string, options: PushOptions & { quiet?: boolean }) => {
      const settings = await context.settings();
      const pushed = await push(settings, await resolveFunction(settings, ref), options);
      const out = context.output(options);
      const chatty = !out.json && !options.quiet;
      if (chatty) out.note(out.style('dim', `job ${pushed.id}`));
      process.once('SIGINT', () => {
        out.note(`\nStopped following; the job goes on. Cancel it with: sluice cancel ${pushed.id}`);
        process.exit(130);
      });
      const job = await followJob(settings, pushed.id, {
        onStatus: (status) => chatty && out.note(`${out.style('dim', 'status')} ${styledStatus(out, status)}`),
        onLog: (line) => chatty && out.note(logText(out, line)),
        onOutput: (output) => !out.json && out.line(outputText(output)),
      });
      if (out.json) out.data(job);
      if (job.status === 'error') throw new CliError(`Job ${job.id} failed: ${job.error ?? 'no reason given'}`);
      if (job.status === 'cancelled') throw new CliError(`Job ${job.id} was cancelled.`);
    });
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** A whole number that may be negative (a priority); the service checks its range. */
function integer(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value)) throw new InvalidArgumentError(`"${text}" is not an integer.`);
  return value;
}

/** Seconds: a bare number, or a duration with its unit (90s, 10m, 2h). */
const seconds = (text: string): number => (/^\d+(?:\.\d+)?$/.test(text.trim()) ? Number(text) : parseDuration(text) / 1000);

async function push(settings: ClientSettings, fn: FunctionRef, options: PushOptions): Promise<PushResult> {
  const version = await callApi<WireVersion>(settings, 'GET', `${fn.path}/versions/latest`);
  const inputs = await readInputs(settings, version, options.input, options.inputsJson);
  const env = Object.fromEntries(
    options.env.map((pair) => {
      const equals = pair.indexOf('=');
      if (equals < 1) throw new CliError(`--env takes NAME=value, not "${pair}".`);
      return [pair.slice(0, equals), pair.slice(equals + 1)];
    }),
  );
  return callApi<PushResult>(settings, 'POST', '/v2/push', {
    function: `${fn.owner}/${fn.name}`,
    inputs,
    ...(options.env.length > 0 ? { env } : {}),
    priority: options.priority,
    start_timeout: options.startTimeout,
    retries: options.retries,
  });
}
