import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pathToFileURL } from 'node:url';
import { DASHBOARD_BUILD, LAMBDA_ENTRIES, REPOSITORY_ROOT, bundleLambdaCode, bundleWorker, requireEntries } from '../../infra/bundle.js';

describe('bundleLambdaCode', () => {
  const folder = bundleLambdaCode();
  const read = (name: string) => readFileSync(join(folder, `${name}.mjs`), 'utf8');

  it('bundles every Lambda entry point into one folder, as <entry>.mjs exporting handler', () => {
    for (const name of Object.keys(LAMBDA_ENTRIES)) expect(read(name)).toMatch(/export\s*\{[^}]*\bhandler\b[^}]*\}/);
  });

  it('bundles once per process', () => {
    const before = statSync(join(folder, 'route.mjs')).mtimeMs;
    expect(bundleLambdaCode()).toBe(folder);
    expect(statSync(join(folder, 'route.mjs')).mtimeMs).toBe(before);
  });

  it('leaves the AWS SDK to the Lambda runtime and never loads better-sqlite3', () => {
    const route = read('route');
    expect(route).toMatch(/from\s*"@aws-sdk\/client-dynamodb"/);
    expect(route).not.toMatch(/node_modules\/@aws-sdk\//);
    expect(route).not.toMatch(/(from|import\()\s*"better-sqlite3"/);
  });

  it('gives CommonJS dependencies a require of their own', () => {
    expect(read('deliver').split('\n')[0]).toContain('createRequire');
  });

  it('serves the dashboard on AWS from the build it carries: the page, its assets, and a 404 for the rest', async () => {
    const { handler } = await import(pathToFileURL(join(folder, 'dashboard.mjs')).href);
    const page = await handler({ rawPath: '/' });
    const built = existsSync(join(REPOSITORY_ROOT, DASHBOARD_BUILD, 'index.html'));
    expect(page).toMatchObject({ statusCode: built ? 200 : 503, isBase64Encoded: true });
    expect(Buffer.from(page.body, 'base64').toString()).toContain(built ? '<div id="app">' : 'npm run build');
    expect((await handler({ rawPath: '/v2/jobs' })).statusCode).toBe(404);
  });

  it('refuses a missing entry point, naming it', () => {
    expect(() => requireEntries(['handlers/http/route.ts', 'handlers/nowhere.ts'], REPOSITORY_ROOT)).toThrow(/missing entry point handlers\/nowhere\.ts/);
    expect(() => requireEntries(Object.values(LAMBDA_ENTRIES))).not.toThrow();
  });
});

describe('bundleWorker', () => {
  it('bundles the worker agent with the AWS SDK inside (a container has none) and the Python SDK beside it, also as sieve', () => {
    const folder = bundleWorker();
    const worker = readFileSync(join(folder, 'worker.mjs'), 'utf8');
    expect(worker).not.toMatch(/from\s*"@aws-sdk\//);
    expect(existsSync(join(folder, 'sdk', 'sluice', '__init__.py'))).toBe(true);
    expect(existsSync(join(folder, 'sdk', 'sluice', '__pycache__'))).toBe(false);
    expect(existsSync(join(folder, 'sdk', 'sieve', '__init__.py'))).toBe(true);
    expect(bundleWorker()).toBe(folder);
  });
});
