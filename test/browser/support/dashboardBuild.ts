import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'vite';

const WEB = 'web';
const PAGE = join(WEB, 'dist', 'index.html');

/** The newest change under web/ outside dist/ (sources, config, public files). */
function newestSource(directory = WEB): number {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (path === join(WEB, 'dist')) continue;
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Builds the dashboard as `npm run build` does when web/dist is missing or older than its
 * sources, so the specs test what the sources build to. A fresh build (npm install made it) is
 * left alone: other specs read it meanwhile.
 */
export async function buildDashboardIfStale(): Promise<void> {
  let built = 0;
  try {
    built = statSync(PAGE).mtimeMs;
  } catch {
    built = 0;
  }
  if (built > newestSource()) return;
  await build({ configFile: join(WEB, 'vite.config.ts'), logLevel: 'warn' });
}
