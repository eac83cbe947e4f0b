import type { Command } from 'commander';
import type { WireFunction } from '../../shared/domain/wire/function.js';
import type { WireVersion } from '../../shared/domain/wire/version.js';
import { callApi } from '../client.js';
import { resolveFunction } from '../functionRef.js';
import { formatWireTime } from '../output/format.js';
import type { Output } from '../output/output.js';
import type { CommandContext } from './context.js';
import { wholeNumber } from './context.js';

const BUILD_STYLE = { ready: 'green', error: 'red' } as const;
const buildStatus = (out: Output, status: string) => out.style(BUILD_STYLE[status as keyof typeof BUILD_STYLE] ?? 'yellow', status);

/** Replicas now: busy / idle / starting. */
function replicas(version: WireVersion): string {
  const workers = version.current_workers;
  if (!workers) return '-';
  return `${workers.active} busy, ${workers.idle} idle${workers.starting + workers.setup > 0 ? `, ${workers.starting + workers.setup} starting` : ''}`;
}

/** `sluice functions` and `sluice versions FUNCTION`. */
export function registerFunctionCommands(program: Command, context: CommandContext): void {
  program
    .command('functions')
    .description("the organization's functions, with their latest versions")
    .option('--json', "print the service's JSON")
    .action(async (options: { json?: boolean }) => {
      const functions = await callApi<WireFunction[]>(await context.settings(), 'GET', '/v2/functions');
      const out = context.output(options);
      if (out.json) return out.data(functions);
      if (functions.length === 0) return out.note('No functions yet: deploy one with sluice deploy PATH.');
      out.table(
        ['FUNCTION', 'LATEST VERSION', 'BUILD', 'COMPUTE', 'REPLICAS'],
        functions.map((fn) => [
          `${fn.owner_name}/${fn.name}`,
          fn.latest_version.id,
          buildStatus(out, fn.latest_version.build_status),
          fn.latest_version.compute_type,
          replicas(fn.latest_version),
        ]),
      );
    });

  program
    .command('versions')
    .description("a function's versions, newest first")
    .argument('<function>', "owner/name, or name for one of your organization's")
    .option('--limit <n>', 'at most this many', wholeNumber, 20)
    .option('--json', "print the service's JSON")
    .action(async (ref: string, options: { limit: number; json?: boolean }) => {
      const settings = await context.settings();
      const fn = await resolveFunction(settings, ref);
      const versions = await callApi<WireVersion[]>(settings, 'GET', `${fn.path}/versions?limit=${options.limit}`);
      const out = context.output(options);
      if (out.json) return out.data(versions);
      out.table(
        ['VERSION', 'BUILD', 'QUEUED', 'READY', 'COMPUTE', 'REPLICAS'],
        versions.map((version) => [
          version.id,
          buildStatus(out, version.build_status),
          formatWireTime(version.queued_at),
          formatWireTime(version.ready_at),
          version.compute_type,
          replicas(version),
        ]),
      );
    });
}
