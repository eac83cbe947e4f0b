import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The pip configuration of the service's user, for a build that runs with its own home: the file
 * pip would read (PIP_CONFIG_FILE, else the user's pip.conf), to show it read-only and name it
 * in PIP_CONFIG_FILE. /etc/pip.conf and the PIP_* variables reach builds as they are.
 */
export function pipConfiguration(env: NodeJS.ProcessEnv): { files: string[]; env: Record<string, string> } {
  const given = env.PIP_CONFIG_FILE;
  if (given !== undefined) return { files: existsSync(given) ? [given] : [], env: {} };
  const home = env.HOME ?? homedir();
  const candidates = [join(env.XDG_CONFIG_HOME ?? join(home, '.config'), 'pip', 'pip.conf'), join(home, '.pip', 'pip.conf')];
  const found = candidates.find((file) => existsSync(file));
  return found === undefined ? { files: [], env: {} } : { files: [found], env: { PIP_CONFIG_FILE: found } };
}

/** `python -m pip install` as every build runs it: no prompts, no version nag. */
export const PIP_INSTALL = ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input'] as const;
