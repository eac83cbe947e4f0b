import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';

/** Debian's chromium (`apt-get install chromium`; .ci/run installs it); SLUICE_CHROMIUM names another. */
export const CHROMIUM = process.env.SLUICE_CHROMIUM ?? '/usr/bin/chromium';

/** Screenshots of each page, kept for people to look at (git-ignored). */
export const ARTIFACTS = join('test-artifacts', 'browser');

/**
 * A headless chromium with a fresh profile (playwright makes one per launch) that reaches
 * nothing but the local service. Missing chromium fails the specs, naming the fix: they are
 * not skipped.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `The browser specs need chromium, and there is none at ${CHROMIUM}. Install it (Debian/Ubuntu: apt-get install -y chromium) or set SLUICE_CHROMIUM to its path.`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}
