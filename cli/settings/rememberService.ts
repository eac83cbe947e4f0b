import { readUserConfig, userConfigPath, writeUserConfig } from './userConfig.js';

/**
 * After `sluice start`: the service's URL, key and data directory go into the user config when
 * it names no service yet, or names this one, so every command works from any directory. A
 * config pointing elsewhere (a `sluice login` to another service) is left as it is.
 * Answers the line to print.
 */
export async function rememberLocalService(url: string, apiKey: string, dataDir: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const saved = await readUserConfig(env);
  if (saved.url && saved.url !== url) {
    return `The sluice CLI talks to ${saved.url} (${userConfigPath(env)}); for this service: sluice login --url ${url} --key ${apiKey}`;
  }
  const path = await writeUserConfig({ ...saved, url, apiKey, dataDir }, env);
  return `The sluice CLI now uses this service from any directory (saved in ${path}).`;
}
