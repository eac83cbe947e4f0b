import type { Command } from 'commander';
import type { KeyService } from '../../shared/services/keyService.js';
import { withOperatorStore } from '../operatorStore.js';

/**
 * `sluice keys ...`: an operator's commands. They open the store directly (the local data
 * directory; DynamoDB with SLUICE_MODE=aws; the emulated DynamoDB of a running `npm run
 * aws:local` whose data directory it is: cli/openKeysStore.ts), so they work whether or not the
 * service is running (aws:local's store, in memory, only while it runs). The data directory is
 * --data-dir, else SLUICE_DATA_DIR, else the one `sluice start` last saved in the user config,
 * else ./.data. One with no store is refused, never silently
 * created: only `keys create` in a data directory named outright (--data-dir, SLUICE_DATA_DIR)
 * makes a new store, as an operator does to provision keys before the first start.
 */
export function registerKeyCommands(program: Command, print: (line: string) => void): void {
  const keys = program
    .command('keys')
    .description('manage organizations and their API keys (opens the store directly)')
    .option('--data-dir <dir>', "the service's data directory (default: SLUICE_DATA_DIR, the one `sluice start` saved, or .data)");
  const dataDirOption = () => keys.opts<{ dataDir?: string }>().dataDir;

  keys
    .command('create')
    .description('create an API key, and the organization if it is new')
    .requiredOption('--org <name>', 'organization name')
    .action((options: { org: string }) =>
      withKeys(dataDirOption(), { mayCreate: true }, async (service) => {
        const created = await service.createKey(options.org);
        print(`Created key ${created.key.id} for organization "${created.organization.name}".`);
        print('Keep it safe: it is shown only now.');
        print(created.secret);
      }),
    );

  keys
    .command('list')
    .description('list API keys (never the keys themselves)')
    .option('--org <name>', 'only this organization')
    .action((options: { org?: string }) =>
      withKeys(dataDirOption(), { mayCreate: false }, async (service) => {
        const { formatTimestamp } = await import('../../shared/domain/time.js');
        const listed = await service.listKeys(options.org);
        if (listed.length === 0) return print('No API keys.');
        print(['ID', 'ORGANIZATION', 'KEY', 'CREATED', 'STATUS'].join('\t'));
        for (const key of listed) {
          const status = key.revokedAt === null ? 'active' : `revoked ${formatTimestamp(key.revokedAt)}`;
          print([key.id, key.organizationName, `${key.prefix}…`, formatTimestamp(key.createdAt), status].join('\t'));
        }
      }),
    );

  keys
    .command('revoke')
    .description('revoke an API key by its id (or a unique prefix of it)')
    .argument('<id>', 'key id, as `sluice keys list` prints it')
    .action((id: string) =>
      withKeys(dataDirOption(), { mayCreate: false }, async (service) => {
        const revoked = await service.revokeKey(id);
        print(`Revoked key ${revoked.id} (${revoked.prefix}…).`);
      }),
    );
}

async function withKeys(dataDir: string | undefined, store: { mayCreate: boolean }, work: (keys: KeyService) => Promise<void>): Promise<void> {
  const [{ createSystemClock }, { KeyService }] = await Promise.all([
    import('../../shared/adapters/systemClock.js'),
    import('../../shared/services/keyService.js'),
  ]);
  await withOperatorStore(dataDir, store.mayCreate, (opened) => work(new KeyService(opened, createSystemClock())));
}
