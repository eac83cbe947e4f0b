/**
 * The default packages' layer (shared/adapters/local/build/defaultPackagesLayer.ts): installed once
 * for an interpreter, and each environment's copy its own.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DefaultPackagesLayers } from '../../shared/adapters/local/build/defaultPackagesLayer.js';

describe("the default packages' layer", () => {
  const root = mkdtempSync(join(tmpdir(), 'sluice-defaults-layer-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const runs: string[][] = [];
  // A pip that "installs" each package as a one-file module in --target.
  const options = (folder: string) => ({
    folder,
    scratchFolder: join(root, 'scratch'),
    pipArgs: [],
    run: async (_command: string, args: string[]) => {
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
  const layers = new DefaultPackagesLayers(options(join(root, 'envs')));
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

  // /dev/shm is a tmpfs of its own on Linux hosts: the environments there, the scratch under /tmp.
  const otherFilesystem = existsSync('/dev/shm') && statSync('/dev/shm').dev !== statSync(tmpdir()).dev;
  it.skipIf(!otherFilesystem)('keeps the layer when the environments folder is on another filesystem than the scratch folder', async () => {
    const environments = mkdtempSync(join('/dev/shm', 'sluice-defaults-envs-'));
    try {
      const apart = new DefaultPackagesLayers({ ...options(join(environments, 'envs')), scratchFolder: join(root, 'scratch-apart') });
      expect(await apart.copyInto(interpreter, ['requests'], environment('four'), () => undefined)).toEqual([]);
      expect(readdirSync(join(environments, 'envs')).filter((name) => name.startsWith('defaults-'))).toHaveLength(1);
      expect(readdirSync(join(root, 'scratch-apart'))).toEqual([]);
    } finally {
      rmSync(environments, { recursive: true, force: true });
    }
  });
});
