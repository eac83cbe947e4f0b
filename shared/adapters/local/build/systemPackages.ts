import { runCommand } from '../process/runCommand.js';
import { BuildFailure } from './buildFailure.js';

/**
 * The local mode runs on the operator's own machine, so it does not install system packages
 * (that needs root); it checks they are there, through dpkg, and names the missing ones.
 */
export async function checkSystemPackages(packages: string[]): Promise<void> {
  if (packages.length === 0) return;
  const missing: string[] = [];
  for (const name of packages) {
    let status = '';
    const result = await runCommand('dpkg-query', ['-W', '-f=${Status}', name], { timeoutMs: 15_000, onLine: (line) => (status += line) });
    if (result.spawnError !== null) {
      throw new BuildFailure(`Cannot check system_packages: dpkg-query is not available (${result.spawnError}).`);
    }
    if (result.exitCode !== 0 || !status.includes('install ok installed')) missing.push(name);
  }
  if (missing.length > 0) {
    throw new BuildFailure(`System package${missing.length > 1 ? 's' : ''} not installed: ${missing.join(', ')}. Install with: sudo apt-get install ${missing.join(' ')}`);
  }
}
