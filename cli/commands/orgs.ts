import type { Command } from 'commander';
import type { Organization } from '../../shared/domain/organization.js';
import type { OrganizationLimitsChange } from '../../shared/domain/organizationLimits.js';
import { CliError } from '../client.js';
import { withOperatorStore } from '../operatorStore.js';

/** Each option of `orgs limits` and the field it sets; `none` clears a cap. */
const LIMIT_OPTIONS = [
  { flag: '--weight <n>', option: 'weight', field: 'weight', help: 'fair share among organizations waiting for the same version (1..100, default 1)' },
  { flag: '--monthly-budget <dollars>', option: 'monthlyBudget', field: 'monthly_budget', help: 'dollars a calendar month (UTC), or none' },
  { flag: '--max-active-jobs <n>', option: 'maxActiveJobs', field: 'max_active_jobs', help: 'jobs queued and processing at once, or none' },
  { flag: '--warn-at <fraction>', option: 'warnAt', field: 'budget_warning_at', help: 'fraction of the budget that sends budget.warning (default 0.8)' },
] as const;

const LIMITS_HEADER = ['ORGANIZATION', 'WEIGHT', 'MONTHLY_BUDGET', 'MAX_ACTIVE_JOBS', 'WARN_AT'].join('\t');

/**
 * `sluice orgs ...`: the operator's limits of organizations (docs/self-hosting.md). Like `sluice
 * keys`, they open the store directly (cli/operatorStore.ts), so they need no token and work
 * whether or not the service runs; a running service applies a change within seconds.
 */
export function registerOrgCommands(program: Command, print: (line: string) => void): void {
  const orgs = program
    .command('orgs')
    .description("organizations' budgets and quotas (opens the store directly)")
    .option('--data-dir <dir>', "the service's data directory (default: SLUICE_DATA_DIR, the one `sluice start` saved, or .data)");
  const dataDir = () => orgs.opts<{ dataDir?: string }>().dataDir;

  orgs
    .command('list')
    .description('list organizations and their limits')
    .action(() =>
      withOperatorStore(dataDir(), false, async (store) => {
        const { OperatorLimits } = await import('../../shared/services/operatorLimits.js');
        const listed = await new OperatorLimits(store).list();
        if (listed.length === 0) return print('No organizations.');
        print(LIMITS_HEADER);
        for (const organization of listed) print(await limitsLine(organization));
      }),
    );

  const limits = orgs.command('limits').description("show an organization's limits, or change those given").argument('<org>', 'organization name');
  for (const { flag, help } of LIMIT_OPTIONS) limits.option(flag, help);
  limits.action((name: string, options: Record<string, string | undefined>) =>
    withOperatorStore(dataDir(), false, async (store) => {
      const { OperatorLimits } = await import('../../shared/services/operatorLimits.js');
      const operator = new OperatorLimits(store);
      const change = await changeOf(options);
      const organization = Object.keys(change).length === 0 ? await operator.get(name) : await operator.change(name, change);
      print(LIMITS_HEADER);
      print(await limitsLine(organization));
    }),
  );
}

/** The options given, as the operator API's body; a value out of bounds is named by its flag. */
async function changeOf(options: Record<string, string | undefined>): Promise<OrganizationLimitsChange> {
  const { organizationLimitsChangeSchema } = await import('../../shared/domain/organizationLimits.js');
  const given = Object.fromEntries(
    LIMIT_OPTIONS.flatMap(({ option, field }) => {
      const value = options[option];
      return value === undefined ? [] : [[field, value === 'none' ? null : Number(value)]];
    }),
  );
  const parsed = organizationLimitsChangeSchema.safeParse(given);
  if (parsed.success) return parsed.data;
  const flagOf = (field: PropertyKey | undefined) => LIMIT_OPTIONS.find((entry) => entry.field === field)?.flag.split(' ')[0] ?? String(field);
  throw new CliError(parsed.error.issues.map((issue) => `${flagOf(issue.path[0])}: ${issue.message}`).join('; '));
}

async function limitsLine(organization: Organization): Promise<string> {
  const { limitsOf } = await import('../../shared/domain/organizationLimits.js');
  const limits = limitsOf(organization);
  const orNone = (value: number | null) => (value === null ? 'none' : String(value));
  return [organization.name, limits.weight, orNone(limits.monthlyBudgetDollars), orNone(limits.maxActiveJobs), limits.budgetWarningAt].join('\t');
}
