#!/usr/bin/env node
// Bundles the CLI (cli/main.ts) into dist/cli/, so `sluice` starts without compiling TypeScript.
// Packages stay in node_modules; each command's heavy parts (the service, the store) are their
// own chunks, loaded when that command runs. Run by `npm install` (prepare) and `npm run build`.
import { writeFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist/cli`;

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  // An install without dev dependencies: bin/sluice.js runs the TypeScript through tsx instead.
  console.warn('sluice: esbuild is not installed; the CLI runs through tsx (slower to start).');
  process.exit(0);
}

/** `import.meta.url` as the source file's own, so paths it resolves (../../python) still hold in the bundle. */
const sourceUrls = {
  name: 'source-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async ({ path }) => {
      const { readFile } = await import('node:fs/promises');
      const source = await readFile(path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      const fromChunk = relative(outdir, path).split('\\').join('/');
      return {
        contents: source.replaceAll('import.meta.url', `new URL(${JSON.stringify(fromChunk)}, import.meta.url).href`),
        loader: 'ts',
        resolveDir: dirname(path),
      };
    });
  },
};

const result = await esbuild.build({
  absWorkingDir: root,
  entryPoints: { main: 'cli/main.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  packages: 'external',
  keepNames: true,
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
  plugins: [sourceUrls],
});
// bin/sluice.js compares the sources' times with the bundle's: a stale bundle is not used.
const inputs = Object.keys(result.metafile.inputs).filter((path) => !path.includes('node_modules'));
await writeFile(`${outdir}/inputs.json`, JSON.stringify(inputs));
