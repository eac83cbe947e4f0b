import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { clearSetIdBits } from '../../shared/adapters/local/build/setIdBits.js';

describe('an environment’s files after its build commands', () => {
  let folder = '';
  afterEach(() => rm(folder, { recursive: true, force: true }));

  it('keep no setuid or setgid bit, at any depth, and keep their other permissions', async () => {
    folder = await mkdtemp(join(tmpdir(), 'sluice-setid-'));
    await mkdir(join(folder, 'bin', 'deep'), { recursive: true });
    const planted = join(folder, 'bin', 'deep', 'rootid');
    const plain = join(folder, 'bin', 'tool');
    await writeFile(planted, '#!/bin/sh\n');
    await writeFile(plain, '#!/bin/sh\n');
    await chmod(planted, 0o6755);
    await chmod(plain, 0o750);
    expect(await clearSetIdBits(folder)).toEqual([planted]);
    expect((await stat(planted)).mode & 0o7777).toBe(0o755);
    expect((await stat(plain)).mode & 0o7777).toBe(0o750);
  });
});
