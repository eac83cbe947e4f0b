import { runCommand } from '../../../system/runCommand.js';
import { BuildFailure } from './buildFailure.js';

/** SLUICE_INSTALL_SYSTEM_PACKAGES: `off` checks only; `apt` installs what is missing with apt-get. */
export type SystemPackageInstall = 'off' | 'apt';

export interface SystemPackageOptions {
  install: SystemPackageInstall;
  say: (line: string) => void;
  /** Default: whether the service runs as root; otherwise apt-get runs through `sudo -n`. */
  asRoot?: boolean;
}

/**
 * The local mode runs on the operator's own machine, whose software is the operator's: by
 * default it checks through dpkg that system_packages are there and names the missing ones.
 * With SLUICE_INSTALL_SYSTEM_PACKAGES=apt it installs them with the host's apt-get (as root, or
 * through password-less sudo), then checks again.
 */
export async function ensureSystemPackages(packages: readonly string[], options: SystemPackageOptions): Promise<void> {
  const missing = await missingPackages(packages);
  if (missing.length === 0) return;
  const list = missing.join(' ');
  const plural = missing.length > 1 ? 's' : '';
  if (options.install === 'off') {
    throw new BuildFailure(
      `System package${plural} not installed: ${missing.join(', ')}. Install with: sudo apt-get install ${list} (or set SLUICE_INSTALL_SYSTEM_PACKAGES=apt to let the service install them).`,
    );
  }
  const asRoot = options.asRoot ?? process.getuid?.() === 0;
  const prefix = asRoot ? [] : ['sudo', '-n'];
  // Asked of apt-get itself: a sudoers rule may allow the service apt-get and nothing else.
  if (!asRoot && (await runCommand('sudo', ['-n', 'apt-get', '--version'], { timeoutMs: 15_000 })).exitCode !== 0) {
    throw new BuildFailure(
      `System package${plural} not installed: ${missing.join(', ')}. SLUICE_INSTALL_SYSTEM_PACKAGES=apt installs them as root, but the service is not root and \`sudo -n apt-get\` does not work for it: ` +
        `install them yourself (sudo apt-get install ${list}), or allow the service's user password-less sudo for apt-get.`,
    );
  }
  options.say(`Installing system package${plural} ${list} with ${[...prefix, 'apt-get'].join(' ')} (SLUICE_INSTALL_SYSTEM_PACKAGES=apt)`);
  const installed = await oneAtATime(async () => {
    // The package lists may be stale or absent (a fresh image): refresh them; a failure is said, the install may still work.
    const updated = await apt(prefix, ['update'], options.say);
    if (updated !== null) options.say(`apt-get update failed (${updated}); installing from the lists there are.`);
    return apt(prefix, ['install', '-y', '--no-install-recommends', ...missing], options.say);
  });
  const still = await missingPackages(missing);
  if (still.length === 0) return;
  throw new BuildFailure(
    `System package${still.length > 1 ? 's' : ''} not installed: ${still.join(', ')}; apt-get install ${installed === null ? 'left them missing' : `failed (${installed})`}: see the build logs.`,
  );
}

/** apt-get holds dpkg's lock: two builds installing at once would fail one of them. */
let aptTurn: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  const turn = aptTurn.then(work, work);
  aptTurn = turn.catch(() => undefined);
  return turn;
}

/** Runs apt-get; null when it succeeded, else why not. */
async function apt(prefix: string[], args: string[], say: (line: string) => void): Promise<string | null> {
  const [command, ...rest] = [...prefix, 'apt-get', ...args] as [string, ...string[]];
  const result = await runCommand(command, rest, { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, timeoutMs: 30 * 60_000, onLine: say });
  if (result.exitCode === 0) return null;
  return result.spawnError ?? (result.timedOut ? 'timed out' : `exit status ${result.exitCode ?? result.signal}`);
}

async function missingPackages(packages: readonly string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const name of packages) {
    let status = '';
    const result = await runCommand('dpkg-query', ['-W', '-f=${Status}', name], { timeoutMs: 15_000, onLine: (line) => (status += line) });
    if (result.spawnError !== null) {
      throw new BuildFailure(`Cannot check system_packages: dpkg-query is not available (${result.spawnError}).`);
    }
    if (result.exitCode !== 0 || !status.includes('install ok installed')) missing.push(name);
  }
  return missing;
}
