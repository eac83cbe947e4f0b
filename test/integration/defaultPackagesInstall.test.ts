import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installDefaultPackages } from '../../shared/adapters/local/build/defaultPackagesStep.js';
import { PythonEnvironments, environmentKey } from '../../shared/adapters/local/build/pythonEnvironments.js';
import type { PythonInterpreter } from '../../shared/adapters/local/build/pythonInterpreters.js';
import { probe } from '../../shared/adapters/local/build/pythonInterpreters.js';
import { NO_SANDBOX } from '../../shared/adapters/local/sandbox/sandbox.js';

describe('installing the default packages', () => {
  const run = async (defaults: string[], installable: (names: string[]) => boolean) => {
    const calls: string[][] = [];
    const log: string[] = [];
    const pip = async (names: string[]) => (calls.push(names), installable(names) ? null : `No matching distribution found for ${names.at(-1)}`);
    const missing = await installDefaultPackages(defaults, '3.8', pip, (line) => log.push(line));
    return { missing, calls, log };
  };

  it('installs them together, in one step', async () => {
    expect(await run(['requests', 'pydantic'], () => true)).toEqual({
      missing: [],
      calls: [['requests', 'pydantic']],
      log: ["Installing the default packages (as Sieve's environments hold them): requests pydantic"],
    });
    expect((await run([], () => false)).calls).toEqual([]);
  });

  it('where that fails, installs each that can be, and warns naming the others, why, and what to do; the build goes on', async () => {
    const { missing, calls, log } = await run(['requests', 'pydantic'], (names) => names.join() === 'requests');
    expect(missing).toEqual(['pydantic']);
    expect(calls).toEqual([['requests', 'pydantic'], ['requests'], ['pydantic']]);
    expect(log.at(-1)).toBe(
      'Warning: default package not installed for Python 3.8: pydantic (No matching distribution found for pydantic). The build goes on without it; code that imports it fails its import check. ' +
        'Name a release that supports Python 3.8 in python_packages, or make one available in the package index.',
    );
  });

  it('tries a lone default once', async () => {
    const { missing, calls, log } = await run(['requests'], () => false);
    expect(missing).toEqual(['requests']);
    expect(calls).toEqual([['requests']]);
    expect(log.at(-1)).toMatch(/^Warning: default package not installed for Python 3\.8: requests \(No matching distribution found for requests\)\./);
  });
});

describe('an environment whose default packages pip cannot install (an index without them)', () => {
  const root = mkdtempSync(join(tmpdir(), 'sluice-default-packages-'));
  const saved = { PIP_NO_INDEX: process.env.PIP_NO_INDEX, PIP_FIND_LINKS: process.env.PIP_FIND_LINKS };
  const environments = new PythonEnvironments({ folder: join(root, 'envs'), scratchFolder: join(root, 'scratch'), pipArgs: [], sandbox: NO_SANDBOX });
  let python: PythonInterpreter;
  const log: string[] = [];
  let made = '';

  beforeAll(async () => {
    // pip's own settings: no index, and an empty folder of wheels.
    process.env.PIP_NO_INDEX = '1';
    process.env.PIP_FIND_LINKS = mkdtempSync(join(root, 'no-wheels-'));
    python = (await probe('python3')) as PythonInterpreter;
    made = await environments.ensure(python, { packages: [], runCommands: [], defaults: ['requests', 'pydantic'] }, (line) => log.push(line));
  }, 120_000);
  afterAll(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(root, { recursive: true, force: true });
  });

  it('is made all the same, and the build log warns naming each default that is missing and pip’s reason', () => {
    expect(existsSync(join(made, '.ready'))).toBe(true);
    const at = (prefix: string) => log.findIndex((line) => line.startsWith(prefix));
    expect(at("Installing the default packages (as Sieve's environments hold them): requests pydantic")).toBeGreaterThan(at('Creating a Python'));
    expect(log.at(-1)).toBe(
      `Warning: default packages not installed for Python ${python.version}: requests (No matching distribution found for requests); pydantic (No matching distribution found for pydantic). ` +
        'The build goes on without them; code that imports them fails its import check. ' +
        `Name a release that supports Python ${python.version} in python_packages, or make one available in the package index.`,
    );
    expect(spawnSync(join(made, 'bin', 'python'), ['-c', 'import requests']).status).not.toBe(0);
  });

  it('is not kept as the environment of its packages: a later build tries the defaults again', () => {
    const key = environmentKey(python, { packages: [], runCommands: [], defaults: ['requests', 'pydantic'] });
    expect(basename(made)).toMatch(new RegExp(`^${key}\\.without-requests-pydantic-`));
    expect(readdirSync(join(root, 'envs'))).toEqual([basename(made)]);
  });

  it('is removed once the build given it fails (no version links to it); an environment in the cache is not', async () => {
    const cached = await environments.ensure(python, { packages: [], runCommands: [], defaults: [] }, () => undefined);
    await environments.discard(cached);
    await environments.discard(made);
    expect(readdirSync(join(root, 'envs'))).toEqual([basename(cached)]);
  });

  it('installs the defaults once for every environment of the interpreter, not once each; a later build without them says so', async () => {
    const later: string[] = [];
    const other = await environments.ensure(python, { packages: [], runCommands: ['true'], defaults: ['requests', 'pydantic'] }, (line) => later.push(line));
    expect(later.filter((line) => line.includes('pip install') || line.startsWith('Installing the default packages'))).toEqual([]);
    expect(later).toContain(
      `Warning: not installed for Python ${python.version} (pip could not, when this service tried at its start): requests pydantic. The build goes on without them.`,
    );
    await environments.discard(other);
  });

  it('is found by a key that holds the defaults: one made before them (or with other defaults) is not reused', () => {
    const key = (defaults?: string[]) => environmentKey(python, { packages: ['six'], runCommands: [], defaults });
    expect(new Set([key(), key(['requests', 'pydantic']), key(['requests'])]).size).toBe(3);
    expect(key(['pydantic', 'requests'])).toBe(key(['requests', 'pydantic']));
  });
});
