import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listBundleFiles } from '../../../shared/packaging/bundleFiles.js';

async function folder(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'sluice-bundle-'));
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return root;
}

describe("what a folder's bundle holds", () => {
  it('leaves out what .gitignore and .sluiceignore exclude, and caches and environments always', async () => {
    const root = await folder({
      'main.py': '',
      'lib/util.py': '',
      '.gitignore': '*.log\nweights/\n',
      '.sluiceignore': 'tests/\n!keep.log\n',
      'run.log': '',
      'keep.log': '',
      'weights/model.bin': '',
      'tests/test_main.py': '',
      '__pycache__/main.cpython-311.pyc': '',
      '.venv/bin/python': '',
    });
    expect(await listBundleFiles(root)).toEqual(['.gitignore', '.sluiceignore', 'keep.log', 'lib/util.py', 'main.py']);
  });

  it("leaves out what Sieve's .sieveignore excludes too", async () => {
    const root = await folder({ 'main.py': '', '.sieveignore': 'samples/\n', 'samples/clip.mp4': '' });
    expect(await listBundleFiles(root)).toEqual(['.sieveignore', 'main.py']);
  });

  it('keeps every file of a folder with no ignore file', async () => {
    expect(await listBundleFiles(await folder({ 'a.py': '', 'data/b.txt': '' }))).toEqual(['a.py', 'data/b.txt']);
  });
});
