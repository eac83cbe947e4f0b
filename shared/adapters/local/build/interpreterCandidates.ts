import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

/** Where the local builder looks for interpreters. */
export interface InterpreterSearch {
  /** The service's interpreter (SLUICE_PYTHON), used where it is the version asked for. */
  defaultPython: string;
  /** Interpreters the operator names (SLUICE_PYTHON_INTERPRETERS), looked at first. */
  extra?: readonly string[];
  /** Default: $PYENV_ROOT, else ~/.pyenv. */
  pyenvRoot?: string;
  /** Folders of the distribution's and hand-built interpreters. */
  systemFolders?: readonly string[];
  /** Default: the service's PATH. */
  path?: string;
}

const SYSTEM_FOLDERS = ['/usr/bin', '/usr/local/bin'];
const VERSIONED_NAME = /^python(3\.\d+)$/;

/**
 * Interpreters that may be Python `version` ("3.8"), most likely first; each is probed, since
 * a name proves nothing (pyenv's `python3.8` shim on PATH fails unless 3.8 is selected).
 */
export function candidatesFor(version: string, search: InterpreterSearch): string[] {
  const name = `python${version}`;
  const pyenv = pyenvInstallations(search)
    .filter((installation) => installation.version === version)
    .map((installation) => installation.executable);
  const within = (folders: string[]) => folders.map((folder) => join(folder, name)).filter((file) => existsSync(file));
  return unique([...(search.extra ?? []), ...within(pathFolders(search)), search.defaultPython, ...pyenv, ...within(systemFolders(search))]);
}

/** Every interpreter the search could find, whatever its version: to name the versions there are. */
export function allCandidates(search: InterpreterSearch): string[] {
  const named = [...pathFolders(search), ...systemFolders(search)].flatMap((folder) =>
    listFolder(folder)
      .filter((entry) => VERSIONED_NAME.test(entry))
      .map((entry) => join(folder, entry)),
  );
  return unique([...(search.extra ?? []), search.defaultPython, ...pyenvInstallations(search).map((installation) => installation.executable), ...named]);
}

/** pyenv's builds of final releases (`versions/3.8.18`), the newest patch of each version first. */
function pyenvInstallations(search: InterpreterSearch): { version: string; executable: string }[] {
  const root = search.pyenvRoot ?? process.env.PYENV_ROOT ?? join(homedir(), '.pyenv');
  return listFolder(join(root, 'versions'))
    .map((entry) => /^(3\.\d+)\.(\d+)$/.exec(entry))
    .filter((match) => match !== null)
    .sort((a, b) => Number(b[2]) - Number(a[2]))
    .map(([entry, version]) => ({ version: version as string, executable: join(root, 'versions', entry, 'bin', `python${version}`) }))
    .filter((installation) => existsSync(installation.executable));
}

function pathFolders(search: InterpreterSearch): string[] {
  return (search.path ?? process.env.PATH ?? '').split(delimiter).filter(Boolean);
}

function systemFolders(search: InterpreterSearch): string[] {
  return [...(search.systemFolders ?? SYSTEM_FOLDERS)];
}

function listFolder(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}

const unique = (items: string[]) => [...new Set(items)];
