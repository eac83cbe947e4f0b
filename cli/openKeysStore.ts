import { existsSync } from 'node:fs';
import type { Config } from '../shared/config.js';
import type { Store } from '../shared/ports/store.js';
import { CliError } from './client.js';
import { awsLocalDataIn, type RunningEmulation } from './settings/awsLocalData.js';

/**
 * The store `sluice keys` works on: DynamoDB with SLUICE_MODE=aws (a real deployment, the AWS
 * SDK's own settings); the emulated DynamoDB of `npm run aws:local` when the data directory is
 * its own (a SQLite store there would be one that the emulated service never reads); otherwise
 * the data directory's SQLite store. `mayCreate`: a missing SQLite store may be made.
 */
export async function openKeysStore(config: Config, mayCreate: boolean, argv: string[]): Promise<Store> {
  const { openStore, sqliteStorePath } = await import('../shared/app/openStore.js');
  if (process.env.SLUICE_MODE !== 'aws') {
    const awsLocal = awsLocalDataIn(config.dataDir);
    if (awsLocal?.state === 'running') return openEmulatedStore(awsLocal.emulation);
    if (awsLocal?.state === 'stopped') throw new CliError(notRunning(config.dataDir, argv));
  }
  if (!mayCreate) refuseMissingStore(config, sqliteStorePath(config.dataDir));
  return openStore(config);
}

async function openEmulatedStore(emulation: RunningEmulation): Promise<Store> {
  const [{ DynamoDBClient }, { createDocumentClient, createDynamoDbStore }] = await Promise.all([
    import('@aws-sdk/client-dynamodb'),
    import('../shared/adapters/aws/dynamodb/dynamoDbStore.js'),
  ]);
  // dynalite checks no credentials; fixed ones keep the SDK from looking for the user's own.
  const client = new DynamoDBClient({
    endpoint: emulation.dynamoDbEndpoint,
    region: emulation.region,
    credentials: { accessKeyId: 'emulated', secretAccessKey: 'emulated' },
    maxAttempts: 1,
  });
  const store = createDynamoDbStore({ tablePrefix: emulation.tablePrefix, client: createDocumentClient(client) });
  return { ...store, close: async () => client.destroy() };
}

/** The emulated DynamoDB is in memory: keys made while aws:local is down could not exist, so say what works. */
function notRunning(dataDir: string, argv: string[]): string {
  const quote = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);
  const args = argv.filter((word, index) => !word.startsWith('--data-dir') && argv[index - 1] !== '--data-dir');
  return (
    `${dataDir} is the data directory of \`npm run aws:local\`, which is not running: its organizations and keys live in the emulated DynamoDB, in memory, only while it runs. ` +
    `Start it (SLUICE_DATA_DIR=${quote(dataDir)} npm run aws:local), then, while it runs, in another terminal: ` +
    `npx sluice ${[...args, '--data-dir', dataDir].map(quote).join(' ')}`
  );
}

function refuseMissingStore(config: Config, storePath: string): void {
  if (config.mode !== 'local' || existsSync(storePath)) return;
  throw new CliError(
    `No Sluice data in ${config.dataDir}: the keys commands open the store of a local service. ` +
      'Pass --data-dir (or set SLUICE_DATA_DIR) to the folder `sluice start` uses, or run `sluice start` once to create it.',
  );
}
