import { Command, Option } from 'commander';
import { clientSettings } from './client.js';
import { DEFAULT_DEPLOY_WAIT } from './deployWait.js';
import { formatDuration, parseDuration } from './duration.js';
import type { CommandContext } from './commands/context.js';
import { registerCompletionCommand } from './commands/completion.js';
import { registerFunctionCommands } from './commands/functions.js';
import { registerJobCommands } from './commands/jobs.js';
import { registerKeyCommands } from './commands/keys.js';
import { registerLogCommands } from './commands/logs.js';
import { registerOrgCommands } from './commands/orgs.js';
import { registerLoginCommands } from './commands/login.js';
import { registerReplayCommand } from './commands/replay.js';
import { registerRunCommands } from './commands/run.js';
import { registerUsageCommands } from './commands/usage.js';
import { registerWebhookCommands } from './commands/webhooks.js';
import { createOutput } from './output/output.js';
import { packageVersion } from './version.js';

const print = (line: string) => process.stdout.write(`${line}\n`);

/**
 * Every `sluice` command. The service (`start`), the store (`keys`) and the packager (`deploy`)
 * load only when their command runs, so the others start fast.
 */
export function buildProgram(): Command {
  const program = new Command()
    .name('sluice')
    .description('Sluice: host functions and run jobs on them (the Sieve v2 API, self-hosted)')
    .version(packageVersion(), '-V, --version')
    .showHelpAfterError();
  const context: CommandContext = { settings: () => clientSettings(), output: (options) => createOutput({ json: options.json }) };

  program
    .command('start')
    .description('run the embedded service: HTTP API, SQLite store, builds (data in SLUICE_DATA_DIR, default .data)')
    .option('--port <port>', 'port to listen on (or PORT; default 8080)')
    .option('--host <host>', 'address to listen on (or HOST; default 127.0.0.1)')
    .option('--data-dir <dir>', 'data directory (or SLUICE_DATA_DIR; default .data)')
    .addOption(new Option('--examples', 'deploy the example functions when absent').default(false))
    .action(async (options: { port?: string; host?: string; dataDir?: string; examples: boolean }) => {
      const [{ loadConfig }, { createLogger }, { startCommand }] = await Promise.all([
        import('../shared/config.js'),
        import('../shared/app/logger.js'),
        import('./commands/start.js'),
      ]);
      const env = { ...process.env };
      if (options.port !== undefined) env.PORT = options.port;
      if (options.host !== undefined) env.HOST = options.host;
      if (options.dataDir !== undefined) env.SLUICE_DATA_DIR = options.dataDir;
      const config = loadConfig(env);
      await startCommand(config, createLogger(config), options.examples, print);
    });

  program
    .command('deploy')
    .description('deploy the functions a folder (or one .py file) declares, and follow their builds')
    .argument('[path]', 'a folder of Python code (its .gitignore, .sieveignore and .sluiceignore apply), or a .py file (its folder is sent)', '.')
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
    .action(async (path: string, options: { timeout: number; stall: number }) => {
      const [{ loadConfig }, { deployCommand }] = await Promise.all([import('../shared/config.js'), import('./commands/deploy.js')]);
      await deployCommand(path, await clientSettings(), loadConfig().python, print, { timeoutMs: options.timeout, stallMs: options.stall });
    });

  registerRunCommands(program, context);
  registerJobCommands(program, context);
  registerReplayCommand(program, context);
  registerLogCommands(program, context);
  registerFunctionCommands(program, context);
  registerUsageCommands(program, context);
  registerLoginCommands(program, context);
  registerKeyCommands(program, print);
  registerOrgCommands(program, print);
  registerWebhookCommands(program, () => clientSettings(), print);
  registerCompletionCommand(program, print);
  return program;
}
