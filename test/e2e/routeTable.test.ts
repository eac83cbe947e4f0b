import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../shared/http/routeTable.js';
import type { TestService } from './support/testService.js';
import { startTestService } from './support/testService.js';

/** A concrete path for a route template: each {param} becomes a plausible value. */
const concretePath = (template: string) => template.replace(/\{(\w+)\}/g, (_, name: string) => `some-${name}`);

describe('the route table served by the local gateway', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.close());

  it('lists every route once', () => {
    const keys = ROUTES.map((route) => `${route.method} ${route.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(ROUTES.map((route) => route.name)).size).toBe(ROUTES.length);
  });

  for (const route of ROUTES.filter((candidate) => !candidate.public)) {
    it(`answers 401 without a key on ${route.method} ${route.path}`, async () => {
      const response = await fetch(`${service.url}${concretePath(route.path)}`, { method: route.method });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ detail: 'Unauthorized - valid API Key required.' });
    });
  }

  it('answers 404 JSON for unknown paths, with or without a key', async () => {
    for (const headers of [{}, { 'x-api-key': service.key }] as Record<string, string>[]) {
      const response = await fetch(`${service.url}/v2/no/such/thing`, { headers });
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(await response.json()).toEqual({ detail: 'Not Found' });
    }
  });

  it('answers 405 JSON for a known path with another method', async () => {
    const response = await fetch(`${service.url}/v2/functions/a/b`, { method: 'DELETE', headers: { 'x-api-key': service.key } });
    expect(response.status).toBe(405);
    expect(await response.json()).toEqual({ detail: 'Method Not Allowed' });
  });

  it('answers 422 for a body that is not JSON, never 500', async () => {
    const response = await fetch(`${service.url}/v2/functions/local/x/edit`, {
      method: 'POST',
      headers: { 'x-api-key': service.key, 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(response.status).toBe(422);
    expect(((await response.json()) as any).detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
  });
});
