import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../e2e/support/testService.js';
import { startTestService } from '../e2e/support/testService.js';
import { launchChromium } from './support/chromium.js';

/** A page of another origin: a tiny static server on its own port. */
function startPageServer(): Promise<Server> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><title>another origin</title><p>calls the Sluice API from here</p>');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** What a script of the page gets from fetch: the answer, or the browser's refusal. */
const callFromPage = (page: Page, url: string, key: string, init: { method: string; body?: unknown }) =>
  page.evaluate(
    async ({ url, key, init }) => {
      try {
        const headers: Record<string, string> = { 'X-API-Key': key };
        if (init.body !== undefined) headers['Content-Type'] = 'application/json';
        const response = await fetch(url, { method: init.method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
        return { status: response.status, body: await response.json() };
      } catch (error) {
        return { refused: String(error) };
      }
    },
    { url, key, init },
  );

describe('browsers: a page of another origin calls the API with its key (CORS, in chromium)', () => {
  let pages: Server;
  let pagePort: number;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    pages = await startPageServer();
    pagePort = (pages.address() as AddressInfo).port;
    browser = await launchChromium();
    page = await browser.newPage();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    pages?.close();
  });

  describe('by default, from any origin', () => {
    let service: TestService;
    beforeAll(async () => {
      service = await startTestService();
    }, 30_000);
    afterAll(() => service.close());

    it('reads a list and creates an upload: the preflight for X-API-Key and JSON is answered, then the call', async () => {
      await page.goto(`http://127.0.0.1:${pagePort}/`);
      const listed = await callFromPage(page, `${service.url}/v2/jobs`, service.key, { method: 'GET' });
      expect(listed).toEqual({ status: 200, body: { data: [], next_offset: -1 } });
      // A JSON body with a custom header is never a simple request: the browser sends it only after its preflight passed.
      const created = await callFromPage(page, `${service.url}/v2/uploads`, service.key, { method: 'POST', body: { size: 10 } });
      expect(created).toMatchObject({ status: 201, body: { upload_id: expect.any(String), upload_url: expect.stringContaining(service.url) } });
    });
  });

  describe('with SLUICE_CORS_ORIGINS naming one origin', () => {
    let service: TestService;
    beforeAll(async () => {
      service = await startTestService({ SLUICE_CORS_ORIGINS: `http://localhost:${pagePort}` });
    }, 30_000);
    afterAll(() => service.close());

    it('answers the named origin, and the browser refuses the answer to any other', async () => {
      await page.goto(`http://localhost:${pagePort}/`);
      expect(await callFromPage(page, `${service.url}/v2/organization`, service.key, { method: 'GET' })).toMatchObject({
        status: 200,
        body: { name: 'local' },
      });
      await page.goto(`http://127.0.0.1:${pagePort}/`);
      expect(await callFromPage(page, `${service.url}/v2/organization`, service.key, { method: 'GET' })).toEqual({
        refused: expect.stringContaining('Failed to fetch'),
      });
    });
  });
});
