import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_PACKAGE_CASES } from '../support/defaultPackageCases.js';
import { writeImage } from './dockerfileScript.js';

describe('the default packages in the image the AWS build writes', () => {
  const work = mkdtempSync(join(tmpdir(), 'sluice-dockerfile-defaults-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  const dockerfile = (PYTHON_PACKAGES: string, PYTHON_VERSION = '3.11') => {
    const result = writeImage(work, { PYTHON_PACKAGES, PYTHON_VERSION });
    expect(result.status, result.stderr).toBe(0);
    return result.dockerfile.split('\n');
  };
  const defaultsLine = (lines: string[]) => lines.find((line) => line.startsWith('RUN pip install ') && !line.includes('requirements.txt'));

  it('installs them in the environment before the version’s requirements, and a failure only warns, naming the package and the Python', () => {
    const lines = dockerfile('numpy==2.1', '3.8');
    const run = defaultsLine(lines) as string;
    expect(run).toBe(
      'RUN pip install requests pydantic pillow pyyaml tqdm typer || for package in requests pydantic pillow pyyaml tqdm typer; do pip install "$package" || ' +
        'echo "Warning: default package $package not installed for Python 3.8; code that imports it fails its import check. Name a release that supports Python 3.8 in python_packages." >&2; done',
    );
    expect(lines.indexOf('ENV VIRTUAL_ENV=/opt/venv PATH=/opt/venv/bin:$PATH')).toBeLessThan(lines.indexOf(run));
    expect(lines.indexOf(run)).toBeLessThan(lines.indexOf('COPY requirements.txt /tmp/requirements.txt'));
  });

  it('tolerates a default that does not install: the step’s shell goes on and ends well', () => {
    const run = (defaultsLine(dockerfile('')) as string).slice('RUN '.length);
    const bin = mkdtempSync(join(work, 'bin-'));
    // A pip that installs requests alone and fails on anything else.
    spawnSync('sh', ['-c', `printf '#!/bin/sh\\necho "pip $*"\\n[ "$*" = "install requests" ]\\n' > ${bin}/pip && chmod +x ${bin}/pip`]);
    const result = spawnSync('sh', ['-c', run], { env: { PATH: `${bin}:${process.env.PATH}` }, encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual([
      'pip install requests pydantic pillow pyyaml tqdm typer',
      ...['requests', 'pydantic', 'pillow', 'pyyaml', 'tqdm', 'typer'].map((name) => `pip install ${name}`),
    ]);
    expect(result.stderr).toContain('Warning: default package pydantic not installed for Python 3.11');
  });

  it.each(DEFAULT_PACKAGE_CASES)('with python_packages %j installs the defaults %j, as the local builder does', (packages, defaults) => {
    const run = defaultsLine(dockerfile(packages.join(' ')));
    if (defaults.length === 0) expect(run).toBeUndefined();
    else expect(run).toMatch(new RegExp(`^RUN pip install ${defaults.join(' ')} \\|\\| for package in ${defaults.join(' ')}; do`));
  });
});
