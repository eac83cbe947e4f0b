/**
 * What `sluice deploy` runs of a module to learn arguments it computes (cli/moduleEvaluator.ts,
 * docs/security.md "Deploy-time evaluation"): the module's top level, in the build sandbox,
 * without the network and without the deployer's other files.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCode } from '../../../cli/deployCode.js';

describe('the module code sluice deploy runs to read computed arguments', () => {
  let server: Server;
  let hits = 0;
  let outside = '';
  let secret = '';

  beforeAll(async () => {
    server = createServer((_request, response) => {
      hits += 1;
      response.end('"from the network"');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    outside = await mkdtemp(join(tmpdir(), 'sluice-deployer-'));
    secret = join(outside, 'secret.txt');
    await writeFile(secret, 'the deployer’s own file');
  });
  afterAll(async () => {
    server.close();
    await rm(outside, { recursive: true, force: true });
  });

  const folderWith = async (source: string) => {
    const folder = await mkdtemp(join(tmpdir(), 'sluice-evaluated-'));
    await writeFile(join(folder, 'main.py'), source);
    return folder;
  };

  it('learns what the module computes at its top level', async () => {
    const folder = await folderWith(
      'import sieve\n\nTITLE = "-".join(["made", "here"])\n\n@sieve.function(name="computed", title=TITLE)\ndef f():\n    pass\n',
    );
    const code = await readCode(folder, 'python3');
    expect(code.functions).toEqual([expect.objectContaining({ name: 'computed', title: 'made-here' })]);
  });

  it('gives it no network: a module that fetches its metadata at import fails the deploy, and nothing was asked', async () => {
    const { port } = server.address() as AddressInfo;
    const folder = await folderWith(
      `import urllib.request\nimport sieve\n\nTITLE = urllib.request.urlopen("http://127.0.0.1:${port}/", timeout=5).read().decode()\n\n@sieve.function(name="fetching", title=TITLE)\ndef f():\n    pass\n`,
    );
    await expect(readCode(folder, 'python3')).rejects.toThrow(
      /main\.py:6: running the module failed: urllib\.error\.URLError: <urlopen error \[Errno 111\] Connection refused>/,
    );
    expect(hits).toBe(0);
  });

  it("shows it none of the deployer's files outside the folder deployed", async () => {
    const folder = await folderWith(
      `import sieve\n\nTITLE = open(${JSON.stringify(secret)}).read()\n\n@sieve.function(name="reading", title=TITLE)\ndef f():\n    pass\n`,
    );
    await expect(readCode(folder, 'python3')).rejects.toThrow(/main\.py:5: running the module failed: FileNotFoundError/);
  });
});
