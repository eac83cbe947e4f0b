import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as SluiceModule from '../../clients/typescript/src/index.js';
import type { TestService } from '../e2e/support/testService.js';
import { deployDirectory, startTestService, waitForBuild } from '../e2e/support/testService.js';
import { launchChromium } from './support/chromium.js';

const CLIENT = fileURLToPath(new URL('../../clients/typescript/src/index.ts', import.meta.url));
const STREAM_WORDS = fileURLToPath(new URL('../../examples/stream-words', import.meta.url));

/** The client as a browser loads it: bundled for the browser platform, no Node built-in within reach. */
async function browserBundle(): Promise<string> {
  const result = await build({
    entryPoints: [CLIENT],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    globalName: 'Sluice',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}

describe('the TypeScript client in a real browser', () => {
  let service: TestService;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    service = await startTestService();
    const deployed = await deployDirectory(service, STREAM_WORDS);
    await waitForBuild(service, 'local/stream-words', deployed.body.version.id);
    browser = await launchChromium();
    page = await browser.newPage();
    // A page of another origin than the service's: the calls are cross-origin, as an application's would be.
    await page.setContent('<!doctype html><title>client</title>');
    await page.addScriptTag({ content: await browserBundle() });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  it('runs a job, streams its outputs, uploads a Blob and reports errors, cross-origin, with fetch alone', async () => {
    const result = await page.evaluate(
      async ({ url, apiKey }) => {
        const { SluiceClient } = (globalThis as unknown as { Sluice: typeof SluiceModule }).Sluice;
        const client = new SluiceClient({ url, apiKey });
        const job = await client.run('local/stream-words', { text: 'in the browser' });
        const streamed: unknown[] = [];
        for await (const output of client.outputs(job.id)) streamed.push(output.data);
        const upload = await client.upload(new Blob(['bytes']), 'page.txt');
        const error = await client
          .job('no-such-job')
          .catch((caught: { name: string; status: number; detail: unknown }) => ({ name: caught.name, status: caught.status, detail: caught.detail }));
        return { status: job.status, streamed, upload, error };
      },
      { url: service.url, apiKey: service.key },
    );
    expect(result.status).toBe('finished');
    expect(result.streamed).toEqual(['in', 'the', 'browser']);
    expect(result.upload).toMatchObject({ upload_id: expect.any(String), name: 'page.txt' });
    expect(result.error).toEqual({ name: 'SluiceError', status: 404, detail: 'Job not found.' });
  });
});
