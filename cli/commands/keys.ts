import type { Command } from 'commander';
import { createSystemClock } from '../../shared/adapters/systemClock.js';
import { openStore } from '../../shared/app/openStore.js';
import { loadConfig } from '../../shared/config.js';
import { formatTimestamp } from '../../shared/domain/time.js';
import { KeyService } from '../../shared/services/keyService.js';

/**
 * `sluice keys ...`: an operator's commands. They open the store directly (the local data
 * directory, SLUICE_DATA_DIR; or DynamoDB with SLUICE_MODE=aws), so they work whether or not
 * the service is running.
 */
export function registerKeyCommands(program: Command, print: (line: string) => void): void {
  const keys = program.command('keys').description('manage organizations and their API keys');

  keys
    .command('create')
    .description('create an API key, and the organization if it is new')
    .requiredOption('--org <name>', 'organization name')
    .action((options: { org: string }) =>
      withKeys(async (service) => {
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
      withKeys(async (service) => {
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
      withKeys(async (service) => {
        const revoked = await service.revokeKey(id);
        print(`Revoked key ${revoked.id} (${revoked.prefix}…).`);
      }),
    );
}

async function withKeys(work: (keys: KeyService) => Promise<void>): Promise<void> {
  const store = openStore(loadConfig());
  try {
    await work(new KeyService(store, createSystemClock()));
  } finally {
    await store.close();
  }
}
