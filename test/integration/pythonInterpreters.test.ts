import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findPythonInterpreter } from '../../shared/adapters/local/build/pythonInterpreters.js';

/** A script that answers the builder's probe as an interpreter of `version` would (its path as sys.executable). */
function fakePython(file: string, version: string | null): string {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, version === null ? '#!/bin/sh\necho "pyenv: command not found" >&2\nexit 127\n' : `#!/bin/sh\necho "$0"\necho ${version}\n`);
  chmodSync(file, 0o755);
  return file;
}

describe('finding the interpreter for python_version', () => {
  const root = mkdtempSync(join(tmpdir(), 'sluice-interpreters-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const pyenvRoot = join(root, 'pyenv');
  fakePython(join(pyenvRoot, 'versions', '3.8.9', 'bin', 'python3.8'), '3.8');
  const newest38 = fakePython(join(pyenvRoot, 'versions', '3.8.10', 'bin', 'python3.8'), '3.8');
  fakePython(join(pyenvRoot, 'versions', '3.9.1', 'bin', 'python3.9'), '3.9');
  // pyenv's shims on PATH: a name for each version, which fails unless that version is selected.
  const shims = join(root, 'shims');
  fakePython(join(shims, 'python3.8'), null);
  const defaultPython = fakePython(join(root, 'default', 'python3'), '3.11');
  const system312 = fakePython(join(root, 'usr-bin', 'python3.12'), '3.12');
  const search = { defaultPython, pyenvRoot, path: shims, systemFolders: [join(root, 'usr-bin')] };

  it('finds a pyenv installation that is not on PATH, the newest patch of the version (a shim that fails is passed over)', async () => {
    expect(await findPythonInterpreter('3.8', search)).toEqual({ executable: newest38, version: '3.8' });
  });

  it('finds python3.X in the distribution’s folders, and the default python when it is the version', async () => {
    expect(await findPythonInterpreter('3.12', search)).toEqual({ executable: system312, version: '3.12' });
    expect(await findPythonInterpreter('3.11', search)).toEqual({ executable: defaultPython, version: '3.11' });
  });

  it('looks first at the interpreters the operator names (SLUICE_PYTHON_INTERPRETERS)', async () => {
    const operators = fakePython(join(root, 'opt', 'py38', 'bin', 'python3.8'), '3.8');
    const other = fakePython(join(root, 'opt', 'py310', 'bin', 'python3.10'), '3.10');
    expect(await findPythonInterpreter('3.8', { ...search, extra: [other, operators] })).toEqual({ executable: operators, version: '3.8' });
    expect(await findPythonInterpreter('3.10', { ...search, extra: [other, operators] })).toEqual({ executable: other, version: '3.10' });
  });

  it('fails naming the versions there are and how to add the one asked for', async () => {
    const error = (await findPythonInterpreter('3.7', { ...search, extra: [fakePython(join(root, 'opt', 'py313'), '3.13')] }).catch(
      (caught: unknown) => caught,
    )) as Error;
    expect(error.name).toBe('BuildFailure');
    expect(error.message).toMatch(/^Python 3\.7 is not installed on this machine; installed: 3\.8, 3\.9, 3\.11, 3\.12, 3\.13 /);
    expect(error.message).toContain('Set python_version to one of them');
    expect(error.message).toContain('`pyenv install 3.7`');
    expect(error.message).toContain('`apt-get install python3.7`; on Ubuntu, from the deadsnakes PPA');
    expect(error.message).toContain('python:3.7-slim');
    expect(error.message).toContain('SLUICE_PYTHON_INTERPRETERS');
  });
});
