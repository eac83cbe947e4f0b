import { Command, Option } from 'commander';
import { createLogger } from '../shared/app/logger.js';
import { ConfigError, loadConfig } from '../shared/config.js';
import { ServiceError } from '../shared/domain/errors.js';
import { clientSettings, CliError } from './client.js';
import { DEFAULT_DEPLOY_WAIT, deployCommand } from './commands/deploy.js';
import { formatDuration, parseDuration } from './duration.js';
import { registerKeyCommands } from './commands/keys.js';
import { registerWebhookCommands } from './commands/webhooks.js';
import { startCommand } from './commands/start.js';

const print = (line: string) => process.stdout.write(`${line}\n`);

const program = new Command()
  .name('sluice')
  .description('Sluice: host functions and run jobs on them (the Sieve v2 API, self-hosted)')
  .showHelpAfterError();

program
  .command('start')
  .description('run the embedded service: HTTP API, SQLite store, builds (data in SLUICE_DATA_DIR, default .data)')
  .option('--port <port>', 'port to listen on (or PORT; default 8080)')
  .option('--host <host>', 'address to listen on (or HOST; default 127.0.0.1)')
  .option('--data-dir <dir>', 'data directory (or SLUICE_DATA_DIR; default .data)')
  .addOption(new Option('--examples', 'deploy the example functions when absent').default(false))
  .action(async (options: { port?: string; host?: string; dataDir?: string; examples: boolean }) => {
    const env = { ...process.env };
    if (options.port !== undefined) env.PORT = options.port;
    if (options.host !== undefined) env.HOST = options.host;
    if (options.dataDir !== undefined) env.SLUICE_DATA_DIR = options.dataDir;
    const config = loadConfig(env);
    await startCommand(config, createLogger(config), options.examples, print);
  });

program
  .command('deploy')
  .description('deploy the functions a directory declares (SLUICE_URL, SLUICE_API_KEY)')
  .argument('[dir]', 'directory of Python code', '.')
  .addOption(
    new Option('--timeout <duration>', 'give up following a version still building after this long, e.g. 90s, 20m, 2h (minutes when bare)')
      .argParser(parseDuration)
      .default(DEFAULT_DEPLOY_WAIT.timeoutMs, formatDuration(DEFAULT_DEPLOY_WAIT.timeoutMs)),
  )
  .addOption(
    new Option('--stall <duration>', 'say where to look when a version stays in one state with no new log line this long')
      .argParser(parseDuration)
      .default(DEFAULT_DEPLOY_WAIT.stallMs, formatDuration(DEFAULT_DEPLOY_WAIT.stallMs)),
  )
  .action(async (directory: string, options: { timeout: number; stall: number }) => {
    await deployCommand(directory, clientSettings(), loadConfig().python, print, { timeoutMs: options.timeout, stallMs: options.stall });
  });

registerKeyCommands(program, print);
registerWebhookCommands(program, () => clientSettings(), print);

try {
  await program.parseAsync();
} catch (error) {
  if (error instanceof CliError || error instanceof ServiceError || error instanceof ConfigError) {
    process.stderr.write(`error: ${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
