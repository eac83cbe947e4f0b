import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { runCommand } from '../../../system/runCommand.js';
import { BuildFailure } from './buildFailure.js';
import type { InterpreterSearch } from './interpreterCandidates.js';
import { allCandidates, candidatesFor } from './interpreterCandidates.js';

export interface PythonInterpreter {
  /** The real executable (not a pyenv shim), so the choice does not drift later. */
  executable: string;
  version: string;
}

const PROBE = 'import sys; print(sys.executable); print("%d.%d" % sys.version_info[:2])';

/**
 * Finds an installed interpreter for a version like "3.8" (interpreterCandidates.ts says where
 * it looks). None found: the build fails naming the versions this machine has and how to add one.
 */
export async function findPythonInterpreter(version: string, search: InterpreterSearch): Promise<PythonInterpreter> {
  for (const candidate of candidatesFor(version, search)) {
    const found = await probe(candidate);
    if (found?.version === version) return found;
  }
  const found = await Promise.all(allCandidates(search).map((candidate) => probe(candidate)));
  const installed = [...new Set(found.flatMap((interpreter) => (interpreter === null ? [] : [interpreter.version])))].sort(byVersion);
  throw new BuildFailure(
    `Python ${version} is not installed on this machine; installed: ${installed.join(', ') || 'none found'} ` +
      `(looked on PATH, in pyenv, /usr/bin, /usr/local/bin and SLUICE_PYTHON_INTERPRETERS). Set python_version to one of them, ` +
      `or add Python ${version}: \`pyenv install ${version}\`, the distribution's package (\`apt-get install python${version}\`; on Ubuntu, from the deadsnakes PPA), ` +
      `or run the service in a Docker image that has it (e.g. one based on python:${version}-slim); name an interpreter elsewhere in SLUICE_PYTHON_INTERPRETERS.`,
  );
}

const byVersion = (a: string, b: string) => Number(a.split('.')[1]) - Number(b.split('.')[1]);

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
