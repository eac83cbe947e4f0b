import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import type { ClientSettings } from '../client.js';
import { callApi, CliError, DEFAULT_URL } from '../client.js';
import { readStdin } from '../inputs.js';
import { readUserConfig, removeUserConfig, writeUserConfig } from '../settings/userConfig.js';
import type { CommandContext } from './context.js';

/** `sluice login`, `logout`, `whoami`: the service and key every command uses, from any directory. */
export function registerLoginCommands(program: Command, context: CommandContext): void {
  program
    .command('login')
    .description('check a service URL and API key, and keep them (in the user config, mode 0600) for every command')
    .option('--url <url>', `the service (default: SLUICE_URL, the saved one, or ${DEFAULT_URL})`)
    .option('--key <key>', 'the API key (default: SLUICE_API_KEY, or asked for; `-` reads it from stdin)')
    .action(async (options: { url?: string; key?: string }) => {
      const saved = await readUserConfig();
      const url = (options.url ?? process.env.SLUICE_URL ?? saved.url ?? DEFAULT_URL).replace(/\/+$/, '');
      const apiKey = await readKey(options.key ?? process.env.SLUICE_API_KEY);
      const organization = await whoIs({ url, apiKey });
      const path = await writeUserConfig({ ...saved, url, apiKey });
      context.output({}).line(`Logged in to ${url} as organization "${organization}" (saved in ${path}).`);
    });

  program
    .command('logout')
    .description('forget the saved API key')
    .action(async () => {
      const { apiKey: _forgotten, ...rest } = await readUserConfig();
      const path = Object.keys(rest).length > 0 ? await writeUserConfig(rest) : await removeUserConfig();
      context.output({}).line(`Logged out: no API key saved in ${path}.`);
    });

  program
    .command('whoami')
    .description('the service, organization and key the CLI uses, and where each comes from')
    .option('--json', 'print them as JSON')
    .action(async (options: { json?: boolean }) => {
      const settings = await context.settings();
      const organization = await whoIs(settings);
      const key = `${settings.apiKey.slice(0, 8)}…`;
      const out = context.output(options);
      if (out.json)
        return out.data({
          url: settings.url,
          organization,
          key_prefix: settings.apiKey.slice(0, 8),
          url_from: settings.source?.url,
          key_from: settings.source?.apiKey,
        });
      out.line(`organization: ${organization}`);
      out.line(`service:      ${settings.url}  ${out.style('dim', `(from ${settings.source?.url})`)}`);
      out.line(`API key:      ${key}  ${out.style('dim', `(from ${settings.source?.apiKey})`)}`);
    });
}

const whoIs = async (settings: ClientSettings) => (await callApi<{ name: string }>(settings, 'GET', '/v2/organization')).name;

/** --key, else SLUICE_API_KEY, else asked for at a terminal, else stdin's first line. */
async function readKey(given: string | undefined): Promise<string> {
  let key = given === '-' ? undefined : given;
  if (key === undefined && process.stdin.isTTY) {
    const lines = createInterface({ input: process.stdin, output: process.stderr });
    key = await lines.question('API key: ').finally(() => lines.close());
  }
  key ??= (await readStdin()).split('\n')[0] ?? '';
  if (!key.trim()) throw new CliError('No API key given: pass --key KEY, or type it when asked.');
  return key.trim();
}
