import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { callApi } from '../client.js';
import { parseDuration } from '../duration.js';
import { resolveFunction } from '../functionRef.js';
import { formatDollars, formatSeconds } from '../output/format.js';
import type { CommandContext } from './context.js';

interface MachineUsage {
  compute_seconds: number;
  cost_dollars: number;
}
type UsageReport = { total_compute_seconds: number; total_cost_dollars: number } & Record<string, MachineUsage | number>;

/** `sluice usage [FUNCTION] [--since 7d|DATE] [--until DATE]`: compute time and cost by machine type. */
export function registerUsageCommands(program: Command, context: CommandContext): void {
  program
    .command('usage')
    .description("compute time and cost by machine type: the organization's, or one function's")
    .argument('[function]', "owner/name, or name for one of your organization's")
    .option('--since <when>', 'from this long ago (24h, 7d) or this date (2025-01-31, an ISO time)', parseWhen)
    .option('--until <when>', 'up to this long ago or this date', parseWhen)
    .option('--json', "print the service's JSON")
    .action(async (ref: string | undefined, options: { since?: number; until?: number; json?: boolean }) => {
      const settings = await context.settings();
      const path = ref === undefined ? '/v2/usage' : `/v2/usage/function/${(await resolveFunction(settings, ref)).path.slice('/v2/functions/'.length)}`;
      const query = new URLSearchParams({
        ...(options.since === undefined ? {} : { start_timestamp: String(options.since) }),
        ...(options.until === undefined ? {} : { end_timestamp: String(options.until) }),
      });
      const report = await callApi<UsageReport>(settings, 'GET', `${path}${query.size > 0 ? `?${query}` : ''}`);
      const out = context.output(options);
      if (out.json) return out.data(report);
      const used = Object.entries(report).filter((entry): entry is [string, MachineUsage] => typeof entry[1] === 'object' && entry[1].compute_seconds > 0);
      if (used.length === 0) return out.note('No usage in this period.');
      out.table(
        ['MACHINE TYPE', 'COMPUTE', 'COST'],
        [
          ...used.map(([machine, usage]) => [machine, formatSeconds(usage.compute_seconds), formatDollars(usage.cost_dollars)]),
          [out.style('bold', 'total'), formatSeconds(report.total_compute_seconds), out.style('bold', formatDollars(report.total_cost_dollars))],
        ],
      );
    });
}

/** Seconds since the epoch: a duration ago, or a date. */
function parseWhen(text: string): number {
  if (/^\d+(\.\d+)?[smhd]$/.test(text.trim())) return (Date.now() - parseDuration(text)) / 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date)) throw new InvalidArgumentError(`"${text}" is neither a duration (24h, 7d) nor a date (2025-01-31).`);
  return date / 1000;
}
