import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../e2e/support/testService.js';
import { api, startTestService } from '../e2e/support/testService.js';
import { launchChromium, screenshot } from './support/chromium.js';
import { buildDashboardIfStale } from './support/dashboardBuild.js';

describe('the dashboard’s API keys, in a real browser', () => {
  let service: TestService;
  let browser: Browser;
  let page: Page;
  const rows = () => page.getByTestId('api-keys').locator('tbody tr');
  const statusOf = async (secret: string) => (await api(service.url, secret, 'GET', '/v2/organization')).status;

  beforeAll(async () => {
    await buildDashboardIfStale();
    service = await startTestService();
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(`${service.url}/`);
    await page.getByLabel('API key').fill(service.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('organization').getByText('local').waitFor();
    await page.goto(`${service.url}/#/settings`);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  it('lists the organization’s keys, marking the one this tab uses', async () => {
    await expect.poll(() => rows().count()).toBe(1);
    expect(await rows().first().textContent()).toContain(`${service.key.slice(0, 9)}…`);
    expect(await rows().first().textContent()).toContain('(this tab)');
    expect(await page.getByTestId('api-keys').textContent()).not.toContain(service.key.slice(9));
  });

  it('creates a key, shows it once with a copy button, and revokes it: the key is refused afterwards', async () => {
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('new-key').textContent()) ?? '';
    expect(secret).toMatch(/^sk_[\w-]{43}$/);
    await page.getByRole('status').getByRole('button', { name: 'Copy' }).waitFor();
    expect(await statusOf(secret)).toBe(200);
    await expect.poll(() => rows().count()).toBe(2);

    const row = rows().filter({ hasText: secret.slice(0, 9) });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByText(/^revoked /).waitFor();
    expect(await statusOf(secret)).toBe(401);
    expect(await statusOf(service.key)).toBe(200);
    await screenshot(page, 'keys-revoked');
  });

  it('rotates the key this tab uses: the new key is shown once and used, the old one refused, and the tab stays signed in', async () => {
    await page.getByRole('button', { name: 'Rotate this key' }).click();
    await page.getByText(/^Rotated: this tab now uses the new key/).waitFor();
    const secret = (await page.getByTestId('new-key').textContent()) ?? '';
    expect(secret).toMatch(/^sk_[\w-]{43}$/);
    expect(await page.evaluate("sessionStorage.getItem('sluice.apiKey')")).toBe(secret);
    expect(await statusOf(service.key)).toBe(401);
    expect(await statusOf(secret)).toBe(200);
    await expect.poll(() => rows().filter({ hasText: '(this tab)' }).textContent()).toContain(`${secret.slice(0, 9)}…`);
    expect(
      await rows()
        .filter({ hasText: service.key.slice(0, 9) })
        .textContent(),
    ).toMatch(/revoked /);
    // The only active key is this tab's: nothing offers to revoke it.
    expect(await page.getByTestId('api-keys').getByRole('button', { name: 'Revoke' }).count()).toBe(0);
    await screenshot(page, 'keys-rotated');

    await page.goto(`${service.url}/#/functions`);
    await page.getByTestId('organization').getByText('local').waitFor();
    expect(await page.getByLabel('API key').count()).toBe(0);
  });
});
