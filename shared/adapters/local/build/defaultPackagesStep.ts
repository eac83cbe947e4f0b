/** Runs `pip install` of these packages in the environment being made: null when it succeeded, else why not. */
export type PipInstall = (packages: string[]) => Promise<string | null>;

/**
 * Installs the default packages (shared/domain/defaultPackages.ts) into an environment, before
 * the version's own packages, so that the version's requirements win any conflict. A default
 * that cannot be installed for this Python (the index has no release for it) does not fail the
 * build: the build log says which and why, and code that imports it fails the import check.
 * Returns the defaults that are missing.
 */
export async function installDefaultPackages(
  defaults: readonly string[],
  pythonVersion: string,
  pip: PipInstall,
  output: (line: string) => void,
): Promise<string[]> {
  if (defaults.length === 0) return [];
  output(`Installing the default packages (as Sieve's environments hold them): ${defaults.join(' ')}`);
  const together = await pip([...defaults]);
  if (together === null) return [];
  // One that fails takes the other down with it: each alone, so that what can be installed is.
  const failures: [string, string][] = [];
  for (const name of defaults.length === 1 ? [] : defaults) {
    output(`Installing ${name} on its own`);
    const why = await pip([name]);
    if (why !== null) failures.push([name, why]);
  }
  if (defaults.length === 1) failures.push([defaults[0] as string, together]);
  if (failures.length === 0) return [];
  const names = failures.map(([name]) => name);
  const them = names.length > 1 ? 'them' : 'it';
  output(
    `Warning: default package${names.length > 1 ? 's' : ''} not installed for Python ${pythonVersion}: ${failures.map(([name, why]) => `${name} (${why})`).join('; ')}. ` +
      `The build goes on without ${them}; code that imports ${them} fails its import check. Name a release that supports Python ${pythonVersion} in python_packages, or make one available in the package index.`,
  );
  return names;
}
