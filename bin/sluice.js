#!/usr/bin/env node
// The `sluice` command: the bundle `npm run build` makes (dist/cli), when it is newer than every
// source it was made from; otherwise the TypeScript itself, through tsx's loader, so a checkout
// works without a build step.
import { readFileSync, statSync } from 'node:fs';

const root = new URL('../', import.meta.url);

function freshBundle() {
  try {
    const built = statSync(new URL('dist/cli/main.js', root)).mtimeMs;
    const inputs = JSON.parse(readFileSync(new URL('dist/cli/inputs.json', root), 'utf8'));
    return inputs.every((path) => statSync(new URL(path, root)).mtimeMs <= built);
  } catch {
    return false;
  }
}

if (process.env.SLUICE_CLI_FROM_SOURCE !== '1' && freshBundle()) {
  await import(new URL('dist/cli/main.js', root).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../cli/main.ts');
}
