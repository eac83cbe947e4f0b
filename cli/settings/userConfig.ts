import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CliError } from '../cliError.js';

/** What `sluice login` (or the first `sluice start`) keeps for every later command, from any directory. */
export interface UserConfig {
  url?: string;
  apiKey?: string;
  /** The data directory of the local service that `sluice start` ran: where `sluice keys` opens the store. */
  dataDir?: string;
}

/** $XDG_CONFIG_HOME/sluice/config.json, or ~/.config/sluice/config.json. */
export function userConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'sluice', 'config.json');
}

export async function readUserConfig(env: NodeJS.ProcessEnv = process.env): Promise<UserConfig> {
  const path = userConfigPath(env);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return {};
  }
  try {
    const parsed = JSON.parse(text) as UserConfig;
    return typeof parsed === 'object' && parsed !== null ? parsed : {};
  } catch {
    throw new CliError(`${path} is not valid JSON: fix it, or remove it and run sluice login again.`);
  }
}

/** Written with mode 0600 (it holds an API key), in a folder only the user can enter. */
export async function writeUserConfig(config: UserConfig, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const path = userConfigPath(env);
  await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
  // A new file, 0600 from its first byte, then renamed over the old one: the key is never
  // readable by others, not even for a moment, and a crash leaves the old config whole.
  const staging = `${path}.${process.pid}.tmp`;
  await rm(staging, { force: true });
  await writeFile(staging, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  await rename(staging, path);
  return path;
}

export async function removeUserConfig(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const path = userConfigPath(env);
  await rm(path, { force: true });
  return path;
}
