/**
 * What every function environment holds besides its own python_packages, in both modes: what
 * Sieve's environments hold by default, so code that imports them without declaring them moves
 * over unchanged. Unpinned, so pip picks the newest release that supports the function's Python.
 */
export const DEFAULT_PYTHON_PACKAGES: readonly string[] = ['requests', 'pydantic'];

/**
 * The project a requirement names, normalized as PEP 503 compares names (`Foo_Bar.baz` is
 * `foo-bar-baz`): the name a requirement starts with, before any extra, version, marker or URL.
 */
export function projectName(requirement: string): string {
  const name = /^\s*([A-Za-z0-9._-]*)/.exec(requirement)?.[1] ?? '';
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/**
 * The defaults a version gets: those its python_packages do not name. A version naming one
 * itself (`pydantic<2`, `Requests==2.31.0`, `pydantic[email]`) gets its own requirement instead.
 */
export function defaultPackagesFor(pythonPackages: readonly string[]): string[] {
  const named = new Set(pythonPackages.map(projectName));
  return DEFAULT_PYTHON_PACKAGES.filter((name) => !named.has(projectName(name)));
}
