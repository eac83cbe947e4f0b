import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { dashboardAnswer, NOT_BUILT_MESSAGE } from '../../shared/http/dashboard/dashboardSite.js';

describe("the dashboard's files, by path", () => {
  let built: string;
  beforeAll(async () => {
    built = await mkdtemp(join(tmpdir(), 'sluice-site-'));
    await mkdir(join(built, 'assets'));
    await writeFile(join(built, 'index.html'), '<!doctype html><title>Sluice</title>');
    await writeFile(join(built, 'assets', 'index-abc123.js'), 'console.log(1)');
    await writeFile(join(built, 'favicon.svg'), '<svg/>');
    await writeFile(join(tmpdir(), 'outside.js'), 'secret');
  });

  it('answers the page at / and /index.html, checked again at each load, scripts from its own origin only', () => {
    for (const path of ['/', '/index.html']) {
      const answer = dashboardAnswer(built, path);
      expect(answer?.status).toBe(200);
      expect(answer?.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(answer?.headers['cache-control']).toBe('no-cache');
      expect(answer?.headers['content-security-policy']).toMatch(/script-src 'self';.*frame-ancestors 'none'/);
      expect(answer?.body.toString()).toContain('<title>Sluice</title>');
    }
  });

  it('answers hashed assets as JavaScript cached for a year, and the files beside the page for an hour', () => {
    const script = dashboardAnswer(built, '/assets/index-abc123.js');
    expect(script?.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script?.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(dashboardAnswer(built, '/favicon.svg')?.headers['cache-control']).toBe('public, max-age=3600');
  });

  it('answers nothing (the caller 404s) for unknown files and for paths that climb out of the folder', () => {
    for (const path of ['/assets/missing.js', '/assets/../../outside.js', '/assets/..', '/..', '/a/b', '/.env', '/assets/'])
      expect(dashboardAnswer(built, path)).toBeNull();
  });

  it('answers / with how to build the dashboard, 503, when it is not built', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'sluice-site-empty-'));
    const answer = dashboardAnswer(empty, '/');
    expect(answer?.status).toBe(503);
    expect(answer?.body.toString()).toContain('npm run build');
    expect(NOT_BUILT_MESSAGE).toContain('The API under /v2/ works without it');
    expect(dashboardAnswer(empty, '/assets/index-abc123.js')).toBeNull();
  });
});
