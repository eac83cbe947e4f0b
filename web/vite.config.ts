import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The dashboard: Preact, built to web/dist by `npm run build` (and `npm install`), which the
 * service serves at `/`. Relative asset URLs, so the same build works wherever it is served.
 * `npx vite web` serves it with live reload, the API proxied to a running `npm start`.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', reportCompressedSize: true, sourcemap: false },
  server: {
    proxy: {
      '/v2': process.env.SLUICE_URL ?? 'http://127.0.0.1:8080',
      '/uploads': process.env.SLUICE_URL ?? 'http://127.0.0.1:8080',
      '/files': process.env.SLUICE_URL ?? 'http://127.0.0.1:8080',
    },
  },
});
