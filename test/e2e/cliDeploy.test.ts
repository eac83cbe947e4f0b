import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import type { TestService } from './support/testService.js';
import { pythonFunction, startTestService, writeFunctionDir } from './support/testService.js';

/** A function that tells which of its folder's files reached it, and reads a File input. */
const LISTING_FUNCTION = `import os
import sluice

@sluice.function(name="listing")
def listing(upload: sluice.File) -> dict:
    here = os.path.dirname(os.path.abspath(__file__))
    files = sorted(os.path.relpath(os.path.join(folder, name), here) for folder, _, names in os.walk(here) for name in names)
    with open(upload.path) as opened:
        return {"files": files, "upload": opened.read(), "suffix": os.path.splitext(upload.path)[1]}
`;

describe('sluice deploy of a file or a folder, and File inputs from local paths', () => {
  let service: TestService;
  let env: Record<string, string>;

  beforeAll(async () => {
    service = await startTestService();
    env = { SLUICE_URL: service.url, SLUICE_API_KEY: service.key };
  });
  afterAll(() => service.close());

  it("leaves out what the folder's .gitignore and .sluiceignore exclude, and uploads a local file for a File input", async () => {
    const dir = await writeFunctionDir({
      'main.py': LISTING_FUNCTION,
      '.gitignore': '*.log\n',
      '.sluiceignore': 'tests/\n',
      'keep.txt': 'kept',
      'debug.log': 'noise',
      // Ignored: were it read, its function would be deployed too.
      'tests/test_main.py': pythonFunction('ignored-test'),
    });
    const deploy = await runCli(['deploy', dir], env);
    expect(deploy.stderr).toBe('');
    expect(deploy.stdout).toContain('Deploying local/listing');
    expect(deploy.stdout).not.toContain('ignored-test');
    await writeFile(join(dir, 'clip.txt'), 'bytes from my disk');
    const run = await runCli(['run', 'listing', '--input', `upload=${join(dir, 'clip.txt')}`, '--json'], env);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).outputs[0].data).toEqual({
      files: ['.gitignore', '.sluiceignore', 'keep.txt', 'main.py'],
      upload: 'bytes from my disk',
      suffix: '.txt',
    });
  });

  it('deploys a single .py file on its own, reporting every build state it passes through, in order', async () => {
    const dir = await writeFunctionDir({ 'solo.py': pythonFunction('solo'), 'other.py': pythonFunction('not-this-one') });
    const result = await runCli(['deploy', join(dir, 'solo.py')], env);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('not-this-one');
    const states = result.stdout.split('\n').filter((line) => /^ {2}[a-z]+$/.test(line));
    expect(states).toEqual(['  queued', '  building', '  pushing', '  deploying', '  ready']);
    expect((await runCli(['run', 'solo', '-i', 'text=ab', '-i', 'times=2', '-q'], env)).stdout).toBe('abab\n');
  });

  it('reads the README and cover image beside the code, as Sieve\'s readme=open("README.md").read() does', async () => {
    const source = [
      'import sieve',
      '',
      'metadata = sieve.Metadata(description="Reads its README", readme=open("README.md", "r").read(), image=sieve.Image(path="cover.png"))',
      '',
      '@sieve.function(name="with-readme", metadata=metadata)',
      'def with_readme() -> str:',
      '    return "ok"',
      '',
    ].join('\n');
    const dir = await writeFunctionDir({ 'main.py': source, 'README.md': '# With a README\n', 'cover.png': 'png' });
    const deploy = await runCli(['deploy', dir], env);
    expect(deploy.stderr).toBe('');
    expect(deploy.code, deploy.stdout).toBe(0);
    const fn = await (await fetch(`${service.url}/v2/functions/local/with-readme`, { headers: { 'x-api-key': service.key } })).json();
    expect(fn).toMatchObject({
      readme: '# With a README\n',
      description: 'Reads its README',
      cover_image_url: `data:image/png;base64,${Buffer.from('png').toString('base64')}`,
    });
  });

  it('deploys one .py file with the folder that holds it, as sieve deploy app.py does: its README and helper modules are there', async () => {
    const app = [
      'import sieve',
      'from helpers import shout',
      '',
      'README = open("README.md").read()',
      '',
      '@sieve.function(name="one-file")',
      'def one_file() -> str:',
      '    return shout(README)',
      '',
    ].join('\n');
    const dir = await writeFunctionDir({
      'app.py': app,
      'helpers.py': 'def shout(text):\n    return text.upper()\n',
      'README.md': 'readme',
      'other.py': pythonFunction('not-deployed'),
    });
    const deploy = await runCli(['deploy', join(dir, 'app.py')], env);
    expect(deploy.code, deploy.stdout).toBe(0);
    expect(deploy.stdout).not.toContain('not-deployed');
    expect((await runCli(['run', 'one-file', '-q'], env)).stdout).toBe('README\n');
  });

  it('checks every function before it uploads anything: one refused (a git+https requirement) deploys none, naming the function, field and entry', async () => {
    const dir = await writeFunctionDir({
      'good.py': pythonFunction('checked-good'),
      'bad.py': pythonFunction('checked-bad', ', python_packages=["numpy", "git+https://github.com/example/pkg.git"]'),
    });
    const deploy = await runCli(['deploy', dir], env);
    expect(deploy.code).not.toBe(0);
    expect(deploy.stderr).toContain('nothing was deployed');
    expect(deploy.stderr).toContain('checked-bad: python_packages.1: "git+https://github.com/example/pkg.git" must be a package name');
    for (const name of ['checked-good', 'checked-bad'])
      expect((await fetch(`${service.url}/v2/functions/local/${name}`, { headers: { 'x-api-key': service.key } })).status).toBe(404);
  });

  it('says in one line that a path to deploy does not exist, and that a file must be Python', async () => {
    const missing = await runCli(['deploy', 'no/such/folder'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('error: Cannot deploy no/such/folder: no such file or folder.\n');
    const dir = await writeFunctionDir({ 'notes.txt': 'hi' });
    const notPython = await runCli(['deploy', join(dir, 'notes.txt')], env);
    expect(notPython.stderr).toBe(`error: Cannot deploy ${join(dir, 'notes.txt')}: sluice deploy takes a folder or a .py file.\n`);
  });
});
