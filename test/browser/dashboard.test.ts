import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceProcess } from '../e2e/support/serviceProcess.js';
import { startServiceProcess, stopServiceProcess } from '../e2e/support/serviceProcess.js';
import { runCli } from '../e2e/support/cli.js';
import { api, deployDirectory, until, waitForBuild, writeFunctionDir } from '../e2e/support/testService.js';
import { SEVEN_BIG_SOURCE } from '../support/largeJob.js';
import { launchChromium, screenshot } from './support/chromium.js';
import { buildDashboardIfStale } from './support/dashboardBuild.js';

const DIST = join('web', 'dist');
/** Issue 12's budget: no page loads more script than this, gzipped. */
const MAX_SCRIPT_GZIP_BYTES = 300 * 1024;

/** Returns the image it is given: a File input uploaded from the form comes back as an image output. */
const MIRROR = `import sluice

@sluice.function(name="mirror", readme="# mirror\\n\\nReturns **the same image**. <script>alert(1)</script> [bad](javascript:alert(1)) [good](https://example.com)")
def mirror(image: sluice.File, caption: str = "") -> sluice.File:
    return image
`;

/** A 2x2 red PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEklEQVR4nGP4z8DAwMDAwMDAAAH/AAEfVn7QAAAAAElFTkSuQmCC', 'base64');

describe('the dashboard, in a real browser, against `sluice start --examples`', () => {
  let service: ServiceProcess;
  let dataDir: string;
  let browser: Browser;
  let page: Page;
  let pngPath: string;

  beforeAll(async () => {
    // The assets under test are the ones this checkout's sources build to, as `npm install` builds them.
    await buildDashboardIfStale();
    dataDir = await mkdtemp(join(tmpdir(), 'sluice-dashboard-'));
    service = await startServiceProcess(dataDir);
    const target = { url: service.url, key: service.key };
    const broken = await deployDirectory(
      target,
      await writeFunctionDir({
        'main.py': 'import sluice\n\n@sluice.function(name="broken", python_version="3.99")\ndef broken(x: str) -> str:\n    return x\n',
      }),
    );
    const mirror = await deployDirectory(target, await writeFunctionDir({ 'main.py': MIRROR }));
    const big = await deployDirectory(target, await writeFunctionDir({ 'main.py': `import sluice\nfrom typing import Iterator\n${SEVEN_BIG_SOURCE}` }));
    await waitForBuild(target, 'local/broken', broken.body.version.id);
    await waitForBuild(target, 'local/mirror', mirror.body.version.id);
    await waitForBuild(target, 'local/seven-big', big.body.version.id);
    pngPath = join(dataDir, 'red.png');
    await writeFile(pngPath, PNG);
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    if (service) await stopServiceProcess(service.child, 'SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('first renders the sign-in page within a second, and refuses a wrong key', async () => {
    await page.goto(`${service.url}/`);
    await page.getByLabel('API key').waitFor();
    const paint = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Infinity);
    expect(paint).toBeLessThan(1000);
    await page.getByLabel('API key').fill('not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That API key is not valid.').waitFor();
    await screenshot(page, '01-sign-in');
  });

  it('signs in with the key, and lists the example functions with their build state', async () => {
    await page.getByLabel('API key').fill(service.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const functions = page.getByTestId('functions');
    await functions.getByText('hello', { exact: true }).waitFor();
    await functions.getByText('stream-words', { exact: true }).waitFor();
    expect(await page.getByTestId('organization').textContent()).toBe('local');
    expect(await page.evaluate("sessionStorage.getItem('sluice.apiKey')")).toBe(service.key);
    await page.getByRole('searchbox', { name: 'Search functions' }).fill('stream');
    await expect.poll(() => functions.locator('a').count()).toBe(1);
    await page.getByRole('searchbox', { name: 'Search functions' }).fill('');
    await screenshot(page, '02-functions');
  });

  it('pushes a job from a function page and shows its outputs as they stream in', async () => {
    await page.getByTestId('functions').getByText('stream-words', { exact: true }).click();
    await page.getByRole('heading', { name: 'stream-words', level: 2 }).waitFor(); // the README, rendered
    await page.getByText('curl -s -X POST').waitFor();
    await screenshot(page, '03-function');
    const followed: string[] = [];
    page.on('request', (request) => void (request.url().endsWith('/events') && followed.push(new URL(request.url()).pathname)));
    await page.getByLabel(/^text/).fill('one two three');
    await page.getByRole('button', { name: 'Push job' }).click();
    await page.waitForURL(/#\/jobs\/[^/]+$/);
    const outputs = page.getByTestId('outputs');
    await outputs.getByText('three').waitFor({ timeout: 30_000 });
    expect(await outputs.locator('li').allTextContents()).toEqual(['strone', 'strtwo', 'strthree']);
    await page.getByText('finished', { exact: true }).first().waitFor();
    await page.getByTestId('timeline').getByText('finished').waitFor();
    // Followed through the streaming route where the service has it (else polled): asked first either way.
    expect(followed[0]).toMatch(/^\/v2\/jobs\/[^/]+\/events$/);
    await screenshot(page, '04-job');
  }, 60_000);

  it('shows every output of a job too large for one answer (seven of 0.9 MB), reading on by offset', async () => {
    const headers = { 'x-api-key': service.key, 'content-type': 'application/json' };
    const pushed = (await (
      await fetch(`${service.url}/v2/push`, { method: 'POST', headers, body: JSON.stringify({ function: 'local/seven-big', inputs: { count: 7 } }) })
    ).json()) as { id: string };
    for (let status = ''; status !== 'finished';) {
      status = ((await (await fetch(`${service.url}/v2/jobs/${pushed.id}/await?offset=7`, { headers })).json()) as { status: string }).status;
    }
    await page.goto(`${service.url}/#/jobs/${pushed.id}`);
    await page.getByText('finished', { exact: true }).first().waitFor();
    await expect.poll(() => page.getByTestId('outputs').locator('li').count(), { timeout: 20_000 }).toBe(7);
  }, 60_000);

  it('uploads a file input from the form and previews the image the job returns', async () => {
    await page.goto(`${service.url}/#/functions/local/mirror`);
    await page.getByRole('strong').filter({ hasText: 'the same image' }).waitFor();
    // The README's HTML stays text and its javascript: link is dropped.
    expect(await page.locator('.markdown script').count()).toBe(0);
    expect(await page.locator('.markdown').textContent()).toContain('<script>alert(1)</script>');
    expect(await page.locator('.markdown a').evaluateAll((links) => links.map((link) => link.getAttribute('href')))).toEqual(['https://example.com']);
    await page.locator('input[type=file][name=image]').setInputFiles(pngPath);
    await page.getByRole('button', { name: 'Push job' }).click();
    await page.waitForURL(/#\/jobs\/[^/]+$/);
    const image = page.getByTestId('outputs').locator('img');
    await image.waitFor({ timeout: 30_000 });
    await expect.poll(() => image.evaluate((element) => (element as unknown as { naturalWidth: number }).naturalWidth)).toBe(2);
    await screenshot(page, '05-job-image');
  }, 60_000);

  it('lists jobs newest first, filtered by function and status', async () => {
    await page.goto(`${service.url}/#/jobs`);
    const rows = page.getByTestId('jobs').locator('tbody tr');
    // The jobs of stream-words, seven-big and mirror, pushed in that order.
    await expect.poll(() => rows.count()).toBe(3);
    expect(await rows.first().textContent()).toContain('local/mirror');
    await page.locator('select[name=function]').selectOption('local/stream-words');
    await expect.poll(() => rows.count()).toBe(1);
    await page.locator('select[name=status]').selectOption('error');
    await page.getByText('No jobs match.').waitFor();
    await page.locator('select[name=status]').selectOption('finished');
    await expect.poll(() => rows.count()).toBe(1);
    await screenshot(page, '06-jobs');
  });

  it("opens a failed build's log", async () => {
    await page.goto(`${service.url}/#/functions/local/broken/versions`);
    await page.getByTestId('versions').getByText('error', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Build log' }).click();
    await page
      .getByTestId('logs')
      .getByText(/Python 3\.99 is not installed/)
      .waitFor();
    await screenshot(page, '07-failed-build');
  });

  it("shows a job's priority, start deadline, retries and restarts; Run again replays it, opens the new job, and links the two", async () => {
    const pushed = await api(service.url, service.key, 'POST', '/v2/push', {
      function: 'local/hello',
      inputs: { name: 'Ada' },
      priority: 2,
      start_timeout: 300,
      retries: 1,
    });
    const originalId = pushed.body.id as string;
    await until(async () => (await api(service.url, service.key, 'GET', `/v2/jobs/${originalId}`)).body.status === 'finished', 60_000, 100);
    await page.goto(`${service.url}/#/jobs/${originalId}`);
    const scheduling = page.getByTestId('job-scheduling');
    const shown = /Priority\s+2\s+Start deadline\s+300 s after the push\s+Retries\s+1\s+Restarts\s+0/;
    await expect.poll(() => scheduling.innerText()).toMatch(shown);

    await page.getByRole('button', { name: 'Run again' }).click();
    await page.waitForURL((url) => /#\/jobs\/[^/]+$/.test(url.hash) && !url.hash.endsWith(originalId));
    const replayId = new URL(page.url()).hash.split('/').at(-1) as string;
    await page.getByTestId('timeline').getByText('finished').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('outputs').innerText()).toContain('Hello, Ada');
    await expect.poll(() => scheduling.innerText()).toMatch(shown);
    await screenshot(page, '07b-run-again');

    await scheduling.getByRole('link', { name: originalId }).click();
    await page.waitForURL((url) => url.hash.endsWith(originalId));
    await scheduling.getByRole('link', { name: replayId }).waitFor();
  }, 60_000);

  it('shows usage by machine type as a chart, and per function', async () => {
    await page.goto(`${service.url}/#/usage`);
    await page.getByTestId('usage-chart').locator('rect').first().waitFor();
    expect(await page.getByTestId('total-seconds').textContent()).not.toBe('0 ms');
    await page.getByTestId('usage-by-function').getByText('local/stream-words').waitFor();
    await screenshot(page, '08-usage');
  });

  it("shows the organization's monthly budget, spent of the cap, and a warning once past its threshold", async () => {
    await page.goto(`${service.url}/#/usage`);
    expect(await page.getByTestId('budget').textContent()).toBe('Unlimited');
    // The example jobs cost more than this: the budget is spent.
    const set = await runCli(['orgs', '--data-dir', dataDir, 'limits', 'local', '--monthly-budget', '0.000000001'], {});
    expect([set.code, set.stderr]).toEqual([0, '']);
    // The service reads the operator's change within BUDGET_CACHE_MS.
    await until(
      async () => {
        await page.reload();
        await page.getByTestId('budget').waitFor();
        return (await page.getByTestId('budget-warning').count()) > 0;
      },
      20_000,
      500,
    );
    expect(await page.getByTestId('budget').textContent()).toMatch(/^\$[\d.]+ \/ \$[\d.]+$/);
    expect(await page.getByTestId('budget-warning').textContent()).toMatch(/monthly budget of .* is spent: new jobs are refused \(402\)/);
    await screenshot(page, '08b-budget');
    // The specs after this one push again.
    expect((await runCli(['orgs', '--data-dir', dataDir, 'limits', 'local', '--monthly-budget', 'none'], {})).code).toBe(0);
  }, 60_000);

  it('shows the webhook signing secret and rotates it', async () => {
    await page.goto(`${service.url}/#/settings`);
    const secret = page.getByTestId('webhook-secret');
    await expect.poll(() => secret.textContent()).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Show' }).click();
    const before = await secret.textContent();
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Rotate', exact: true }).click();
    await page.getByText('Rotated').waitFor();
    expect(await secret.textContent()).not.toBe(before);
    await screenshot(page, '09-settings');
  });

  it('keeps every page under 300 KB of script, gzipped, served with cache headers', async () => {
    const scripts = (await readdir(join(DIST, 'assets'))).filter((name) => name.endsWith('.js'));
    // One bundle serves every page: each page loads at most all of it.
    const total = (await Promise.all(scripts.map(async (name) => gzipSync(await readFile(join(DIST, 'assets', name))).length))).reduce((a, b) => a + b, 0);
    expect(total).toBeLessThan(MAX_SCRIPT_GZIP_BYTES);
    const asset = await fetch(`${service.url}/assets/${scripts[0]}`);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect(asset.headers.get('content-type')).toContain('javascript');
    const index = await fetch(`${service.url}/`);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect(index.headers.get('content-security-policy')).toContain("script-src 'self'");
  });
});
