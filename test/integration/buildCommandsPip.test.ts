import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PythonEnvironments } from '../../shared/adapters/local/build/pythonEnvironments.js';
import type { PythonInterpreter } from '../../shared/adapters/local/build/pythonInterpreters.js';
import { probe } from '../../shared/adapters/local/build/pythonInterpreters.js';
import { NO_SANDBOX } from '../../shared/adapters/local/sandbox/sandbox.js';

describe('build commands of a function that names no python_packages', () => {
  const root = mkdtempSync(join(tmpdir(), 'sluice-build-pip-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  // Public Sieve functions install with `pip install ...` in run_commands (TalkNet, SAM, ...):
  // as in the image on AWS, `pip` is the environment's own, not the machine's.
  it('run `pip` from the function’s own environment', async () => {
    const environments = new PythonEnvironments({ folder: join(root, 'envs'), scratchFolder: join(root, 'scratch'), pipArgs: [], sandbox: NO_SANDBOX });
    const python = (await probe('python3')) as PythonInterpreter;
    const made = await environments.ensure(python, { packages: [], runCommands: ['pip --version > "$VIRTUAL_ENV/pip.txt"'], defaults: [] }, () => undefined);
    // Made in a scratch folder beside it, then renamed into place.
    expect(readFileSync(join(made, 'pip.txt'), 'utf8')).toContain(`from ${join(root, 'envs')}/`);
  }, 60_000);
});
