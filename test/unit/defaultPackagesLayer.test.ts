/**
 * The default packages' layer (shared/adapters/local/build/defaultPackagesLayer.ts): installed once
 * for an interpreter, and each environment's copy its own.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DefaultPackagesLayers } from '../../shared/adapters/local/build/defaultPackagesLayer.js';

describe("the default packages' layer", () => {
  const root = mkdtempSync(join(tmpdir(), 'sluice-defaults-layer-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const runs: string[][] = [];
  // A pip that "installs" each package as a one-file module in --target.
  const layers = new DefaultPackagesLayers({
    folder: join(root, 'envs'),
    scratchFolder: join(root, 'scratch'),
    pipArgs: [],
    run: async (_command, args) => {
      runs.push(args);
      const target = args.indexOf('--target');
      if (target >= 0) {
        for (const name of args.slice(target + 2)) {
          mkdirSync(join(args[target + 1] as string, name), { recursive: true });
          writeFileSync(join(args[target + 1] as string, name, '__init__.py'), 'ORIGINAL = True\n');
        }
      }
      return null;
    },
  });
  const interpreter = { executable: '/usr/bin/python3.11', version: '3.11' };
  const environment = (name: string) => {
    const path = join(root, name);
    mkdirSync(join(path, 'lib', 'python3.11', 'site-packages'), { recursive: true });
    return path;
  };
  const moduleOf = (env: string) => join(env, 'lib', 'python3.11', 'site-packages', 'requests', '__init__.py');

  it('runs pip once for every environment of the interpreter', async () => {
    for (const name of ['one', 'two']) expect(await layers.copyInto(interpreter, ['requests'], environment(name), () => undefined)).toEqual([]);
    expect(runs.filter((args) => args.includes('--target'))).toHaveLength(1);
    expect(readFileSync(moduleOf(join(root, 'two')), 'utf8')).toBe('ORIGINAL = True\n');
  });

  it("gives each environment its own copy: a build command writing a default's file in place changes no other environment", async () => {
    writeFileSync(moduleOf(join(root, 'one')), 'TAMPERED = True\n'); // in place, as `echo >> file` would
    const later = environment('three');
    await layers.copyInto(interpreter, ['requests'], later, () => undefined);
    expect(readFileSync(moduleOf(later), 'utf8')).toBe('ORIGINAL = True\n');
    expect(readFileSync(moduleOf(join(root, 'two')), 'utf8')).toBe('ORIGINAL = True\n');
  });
});
