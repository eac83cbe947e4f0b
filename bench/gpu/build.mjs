// The real-GPU check's carry (docs/performance.md, "A real GPU"), built on this machine, not the
// device: the CLI bundled with its packages (all but better-sqlite3's native driver, copied
// beside it) and node compressed, into .gpu/ (git-ignored), so no node_modules has to travel.
// Then: the device tool's run with command `bash bench/gpu/run.sh`, carry [".gpu"].
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execSync } from 'node:child_process';
import * as esbuild from 'esbuild';

const root = fileURLToPath(new URL('../..', import.meta.url));
const here = `${root}.gpu/`;
mkdirSync(here, { recursive: true });
const outdir = `${here}cli`;
rmSync(outdir, { recursive: true, force: true });

// As scripts/build-cli.js: import.meta.url as the source file's own, so ../../python etc. still resolve.
const sourceUrls = {
  name: 'source-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async ({ path }) => {
      // walCheckpointer resolves better-sqlite3 from its own URL: the chunk's, beside .gpu/node_modules.
      if (path.includes('node_modules') || path.endsWith('walCheckpointer.ts')) return undefined;
      const source = readFileSync(path, 'utf8');
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

await esbuild.build({
  absWorkingDir: root,
  entryPoints: { main: 'cli/main.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  external: ['better-sqlite3', 'tsx', 'tsx/*'],
  // CommonJS packages inside an ESM bundle still call require() for node's built-ins.
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  keepNames: true,
  logLevel: 'warning',
  plugins: [sourceUrls],
});

const nm = `${here}node_modules`;
rmSync(nm, { recursive: true, force: true });
for (const pkg of ['bindings', 'file-uri-to-path']) cpSync(`${root}node_modules/${pkg}`, `${nm}/${pkg}`, { recursive: true });
const b = `${nm}/better-sqlite3`;
mkdirSync(`${b}/build/Release`, { recursive: true });
cpSync(`${root}node_modules/better-sqlite3/package.json`, `${b}/package.json`);
cpSync(`${root}node_modules/better-sqlite3/lib`, `${b}/lib`, { recursive: true });
cpSync(`${root}node_modules/better-sqlite3/build/Release/better_sqlite3.node`, `${b}/build/Release/better_sqlite3.node`);
if (!existsSync(`${here}node.xz`)) execSync(`xz -T2 -6 -c ${process.execPath} > ${here}node.xz`);
console.log('built', outdir, nm, `${here}node.xz`);
