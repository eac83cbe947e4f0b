/**
 * What a build's one-line failure says when pip fails (shared/adapters/local/build/pythonEnvironments.ts):
 * the package pip could not install, not the line after it that names nothing.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PythonEnvironments } from '../../shared/adapters/local/build/pythonEnvironments.js';
import { NO_SANDBOX } from '../../shared/adapters/local/sandbox/sandbox.js';

describe('a build whose pip install fails', () => {
  const root = mkdtempSync(join(tmpdir(), 'sluice-pip-reason-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  // An interpreter whose venv is itself, and whose pip says what pip says of a conflict.
  const python = join(root, 'python3.11');
  writeFileSync(
    python,
    [
      '#!/bin/sh',
      'if [ "$2" = venv ]; then for last; do :; done; mkdir -p "$last/bin" && cp "$0" "$last/bin/python"; exit 0; fi',
      'echo "ERROR: Cannot install torch==1.9.0 because these package versions have conflicting dependencies."',
      'echo "ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/dependency-resolution/#dealing-with-dependency-conflicts"',
      'exit 1',
      '',
    ].join('\n'),
  );
  chmodSync(python, 0o755);
  const environments = new PythonEnvironments({ folder: join(root, 'envs'), scratchFolder: join(root, 'scratch'), pipArgs: [], sandbox: NO_SANDBOX });

  it('names the package pip could not install, not "ResolutionImpossible"', async () => {
    const made = environments.ensure(
      { executable: python, version: '3.11' },
      { packages: ['torch==1.9.0', 'torchvision==0.20'], runCommands: [] },
      () => undefined,
    );
    await expect(made).rejects.toThrow(
      'pip install failed (Cannot install torch==1.9.0 because these package versions have conflicting dependencies.); see the build logs.',
    );
  });
});
