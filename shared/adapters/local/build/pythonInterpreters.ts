import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { runCommand } from '../process/runCommand.js';
import { BuildFailure } from './buildFailure.js';

export interface PythonInterpreter {
  /** The real executable (not a pyenv shim), so the choice does not drift later. */
  executable: string;
  version: string;
}

const PROBE = 'import sys; print(sys.executable); print("%d.%d" % sys.version_info[:2])';

/** Finds an installed interpreter for a version like "3.11": `python3.11`, else the default python if it is that version. */
export async function findPythonInterpreter(version: string, defaultPython: string): Promise<PythonInterpreter> {
  for (const candidate of [`python${version}`, defaultPython]) {
    const found = await probe(candidate);
    if (found?.version === version) return found;
  }
  throw new BuildFailure(
    `Python ${version} is not installed on this machine (looked for python${version} and ${defaultPython}). ` +
      `Install it, or set python_version to an installed version.`,
  );
}

/** The version of an interpreter, as "3.11"; null when it does not run. */
export async function probe(command: string): Promise<PythonInterpreter | null> {
  const lines: string[] = [];
  const result = await runCommand(command, ['-c', PROBE], { timeoutMs: 15_000, onLine: (line, stream) => stream === 'stdout' && lines.push(line) });
  if (result.exitCode !== 0 || lines.length < 2) return null;
  return { executable: lines[0] as string, version: lines[1] as string };
}

/**
 * The installation an interpreter (or a venv's python, a link to one) runs from, e.g.
 * /usr or ~/.pyenv/versions/3.11.7, which a sandbox shows read-only; null for one at the root.
 */
export function pythonInstallation(executable: string): string | null {
  const installation = dirname(dirname(realpathSync(executable)));
  return installation === '/' ? null : installation;
}
