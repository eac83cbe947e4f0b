import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const folder = mkdtempSync(join(tmpdir(), 'sluice-fast-tier-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Runs one probe spec under the fast tier's setup file, as `npm run test:fast` would. */
function runInFastTier(body: string) {
  writeFileSync(join(folder, 'probe.test.ts'), `import { it } from 'vitest';\n${body}\n`);
  writeFileSync(
    join(folder, 'vitest.config.mjs'),
    `export default { test: { root: ${JSON.stringify(folder)}, include: ['probe.test.ts'], setupFiles: [${JSON.stringify(resolve('test/support/fastTier.ts'))}], pool: 'threads' } };\n`,
  );
  return spawnSync(process.execPath, [resolve('node_modules/vitest/vitest.mjs'), 'run', '--config', join(folder, 'vitest.config.mjs')], {
    encoding: 'utf8',
    cwd: process.cwd(),
  });
}

describe('the fast tier (npm run test:fast) holds only pure specs', () => {
  it('fails a spec that starts a process, even one that catches the error', () => {
    const run = runInFastTier(
      "import { execFileSync } from 'node:child_process';\nit('asks git', () => { try { execFileSync('git', ['--version']); } catch {} });",
    );
    expect(run.status).not.toBe(0);
    expect(run.stdout + run.stderr).toContain(
      'a fast spec may not start processes or open sockets: move it to test/integration/ (it called child_process.execFileSync)',
    );
  });

  it('fails a spec that opens a local server or fetches', () => {
    const run = runInFastTier(
      "import { createServer } from 'node:http';\nit('listens', () => { createServer().listen(0); });\nit('fetches', async () => { await fetch('http://127.0.0.1:9/'); });",
    );
    expect(run.status).not.toBe(0);
    expect(run.stdout + run.stderr).toMatch(/2 failed/);
  });

  it('passes a pure spec', () => {
    const run = runInFastTier("it('adds', () => { if (1 + 1 !== 2) throw new Error('no'); });");
    expect(run.stdout + run.stderr).toContain('1 passed');
    expect(run.status).toBe(0);
  });
});
