import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PythonEnvironments } from '../../shared/adapters/local/build/pythonEnvironments.js';
import type { PythonInterpreter } from '../../shared/adapters/local/build/pythonInterpreters.js';
import { probe } from '../../shared/adapters/local/build/pythonInterpreters.js';
import { NO_SANDBOX } from '../../shared/adapters/local/sandbox/sandbox.js';

describe('an environments folder that services share (SLUICE_ENVIRONMENTS_DIR)', () => {
  const root = mkdtempSync(join(tmpdir(), 'sluice-shared-environments-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  // Two services' builders, in this process as a test's services are, over one folder.
  const builders = ['a', 'b'].map(
    (name) => new PythonEnvironments({ folder: join(root, 'envs'), scratchFolder: join(root, name, 'scratch'), pipArgs: [], sandbox: NO_SANDBOX }),
  );

  it('keeps one environment when two services make the same one at once, and both use it', async () => {
    const python = (await probe('python3')) as PythonInterpreter;
    const contents = { packages: [], runCommands: ['echo made > $VIRTUAL_ENV/made'], defaults: [] };
    const made = await Promise.all(builders.map((builder) => builder.ensure(python, contents, () => undefined)));
    expect(made[0]).toBe(made[1]);
    expect(readdirSync(join(root, 'envs'))).toEqual([basename(made[0] as string)]);
    expect(existsSync(join(made[0] as string, '.ready'))).toBe(true);
    expect(existsSync(join(made[0] as string, 'made'))).toBe(true);
  }, 60_000);
});
