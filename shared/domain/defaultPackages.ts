/**
 * What every function environment holds besides its own python_packages, in both modes: what
 * Sieve's environments hold by default (its SDK's own requirements, sievedata's requires.txt),
 * those public Sieve code imports without declaring (PIL 14 functions, tqdm 9, yaml 7, typer 4,
 * pydantic 16, requests 7), so it moves over unchanged. Unpinned, so pip picks the newest
 * release that supports the function's Python.
 */
export const DEFAULT_PYTHON_PACKAGES: readonly string[] = ['requests', 'pydantic', 'pillow', 'pyyaml', 'tqdm', 'typer'];

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
