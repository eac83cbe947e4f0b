import { readFile, readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import ignore from 'ignore';

/** Folders that are never part of a function's code. */
const SKIPPED = new Set(['.git', '.hg', '.svn', '__pycache__', '.venv', 'venv', 'node_modules', '.mypy_cache', '.pytest_cache', '.data']);

/** Ignore files read at a function folder's top, in gitignore's syntax (Sieve's own `.sieveignore` too). */
export const IGNORE_FILES = ['.gitignore', '.sieveignore', '.sluiceignore'] as const;

/**
 * The files of a function's folder that go into its bundle, relative and sorted: without caches,
 * VCS folders, virtual environments, and what the folder's .gitignore and .sluiceignore exclude
 * (a `!pattern` in .sluiceignore takes back what .gitignore or .sieveignore excluded).
 */
export async function listBundleFiles(root: string): Promise<string[]> {
  // A CommonJS package: its function is the module, and also its `default` (which TypeScript sees).
  const rules = ignore.default();
  for (const name of IGNORE_FILES) rules.add(await readFile(join(root, name), 'utf8').catch(() => ''));
  const files: string[] = [];
  const walk = async (directory: string): Promise<void> => {
    for (const entry of await readdir(directory, { withFileTypes: true })) {
      if (SKIPPED.has(entry.name)) continue;
      const path = join(directory, entry.name);
      const relativePath = relative(root, path).split(sep).join('/');
      if (entry.isDirectory()) {
        if (!rules.ignores(`${relativePath}/`)) await walk(path);
      } else if (entry.isFile() && !rules.ignores(relativePath)) files.push(relativePath);
    }
  };
  await walk(root);
  return files.sort();
}
