import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config.js';
import { ROUTES } from '../../shared/http/routeTable.js';
import type { TestService } from './support/testService.js';
import { startTestService } from './support/testService.js';

const PAGE = 'https://app.example.com';

/** A browser's preflight before a cross-origin request with the API key. */
const preflight = (url: string, origin = PAGE, method = 'POST') =>
  fetch(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'x-api-key, content-type' } });

describe('browsers: cross-origin calls (CORS)', () => {
  describe('by default, from any origin', () => {
    let service: TestService;
    beforeAll(async () => {
      service = await startTestService();
    }, 30_000);
    afterAll(() => service.close());

    it.each(ROUTES.map((route) => [route.method, route.path] as const))(
      'answers the preflight of %s %s with 204, the methods, X-API-Key and Content-Type, and a max age, without a key',
      async (method, path) => {
        const answer = await preflight(`${service.url}${path.replace(/\{[^}]+\}/g, 'x')}`, PAGE, method);
        expect(answer.status).toBe(204);
        expect(answer.headers.get('access-control-allow-origin')).toBe('*');
        expect(answer.headers.get('access-control-allow-methods')).toContain(method);
        expect(answer.headers.get('access-control-allow-headers')?.toLowerCase()).toMatch(/x-api-key.*content-type/);
        expect(Number(answer.headers.get('access-control-max-age'))).toBeGreaterThan(0);
      },
    );

    it('lets a page read an answer, and the headers it needs (Retry-After), when the call succeeds', async () => {
      const answer = await fetch(`${service.url}/v2/jobs`, { headers: { origin: PAGE, 'x-api-key': service.key } });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
      expect(answer.headers.get('access-control-expose-headers')).toContain('Retry-After');
    });

    it('lets a page read errors too: 401 without a key, 404 for an unknown path, 400 for a malformed one', async () => {
      for (const [path, status] of [
        ['/v2/jobs', 401],
        ['/v2/nothing-here', 404],
        ['/v2/jobs/%zz', 400],
      ] as const) {
        const answer = await fetch(`${service.url}${path}`, { headers: { origin: PAGE } });
        expect(answer.status).toBe(status);
        expect(answer.headers.get('access-control-allow-origin')).toBe('*');
      }
    });
  });

  describe('with SLUICE_CORS_ORIGINS naming origins', () => {
    let service: TestService;
    beforeAll(async () => {
      service = await startTestService({ SLUICE_CORS_ORIGINS: `${PAGE}, http://localhost:3000` });
    }, 30_000);
    afterAll(() => service.close());

    it('allows a named origin, echoing it, and says the answer varies by Origin', async () => {
      const answer = await fetch(`${service.url}/v2/jobs`, { headers: { origin: 'http://localhost:3000', 'x-api-key': service.key } });
      expect(answer.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
      expect(answer.headers.get('vary')).toBe('Origin');
      expect((await preflight(`${service.url}/v2/push`)).headers.get('access-control-allow-origin')).toBe(PAGE);
    });

    it('gives any other origin no allowance, so its browser withholds the answer', async () => {
      const answer = await fetch(`${service.url}/v2/jobs`, { headers: { origin: 'https://evil.example', 'x-api-key': service.key } });
      expect(answer.headers.get('access-control-allow-origin')).toBeNull();
      const refused = await preflight(`${service.url}/v2/push`, 'https://evil.example');
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
      expect(refused.headers.get('access-control-allow-headers')).toBeNull();
    });
  });

  it('refuses to start with an origin that is not one', () => {
    expect(() => loadConfig({ SLUICE_CORS_ORIGINS: 'app.example.com' })).toThrow(/SLUICE_CORS_ORIGINS/);
    expect(() => loadConfig({ SLUICE_CORS_ORIGINS: 'https://app.example.com/' })).toThrow(/write it as https:\/\/app.example.com/);
    expect(loadConfig({}).corsOrigins).toEqual(['*']);
  });
});
