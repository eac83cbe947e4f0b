import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One answer of the dashboard's files: small, so it is held in memory whole. */
export interface SiteAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** What `/` answers when `npm run build` has not made the assets: how to make them, not a bare 404. */
export const NOT_BUILT_MESSAGE =
  'The Sluice dashboard is not built: run `npm run build` (npm install also builds it), then reload this page. The API under /v2/ works without it.';

/** Vite names the assets by their content's hash: a name never changes meaning, so browsers keep them a year. */
const HASHED_ASSET = 'public, max-age=31536000, immutable';
/** The page itself is checked each time, so a new build is picked up at the next load. */
const PAGE = 'no-cache';

/**
 * The page may run only its own scripts and styles; outputs' images and media come from
 * signed URLs (the service itself locally, S3 on AWS), uploads go to the upload URL, and
 * nothing may frame the page (the API key is typed into it).
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob: http: https:",
  "media-src 'self' blob: http: https:",
  "connect-src 'self' http: https:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE_HEADERS = {
  'cache-control': PAGE,
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** The kinds of file a Vite build writes (outputs' own table, shared/domain/contentType.ts, has no scripts on purpose). */
const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  ico: 'image/vnd.microsoft.icon',
  woff2: 'font/woff2',
  json: 'application/json',
  txt: 'text/plain; charset=utf-8',
};

/** A file name Vite writes: no folders, no dots leading, nothing that could climb out of the folder. */
const SAFE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

/**
 * The dashboard's built files (web/dist, made by `vite build`), answered by path: the page at
 * `/` (and `/index.html`), its hashed assets under `/assets/`, and the few files beside the
 * page (the icon). Anything else is null: the caller answers its own 404. The same answers in
 * both modes: the local gateway serves them beside the route table, a Lambda on AWS.
 */
export function dashboardAnswer(directory: string, pathname: string): SiteAnswer | null {
  const page = join(directory, 'index.html');
  if (pathname === '/' || pathname === '/index.html') {
    if (!existsSync(page))
      return {
        status: 503,
        headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
        body: Buffer.from(`${NOT_BUILT_MESSAGE}\n`),
      };
    return file(page, 'index.html', PAGE_HEADERS);
  }
  const asset = /^\/assets\/([^/]+)$/.exec(pathname)?.[1];
  if (asset !== undefined) return SAFE_NAME.test(asset) ? file(join(directory, 'assets', asset), asset, { 'cache-control': HASHED_ASSET }) : null;
  const beside = /^\/([^/]+)$/.exec(pathname)?.[1];
  if (beside !== undefined && SAFE_NAME.test(beside) && beside !== 'index.html')
    return file(join(directory, beside), beside, { 'cache-control': 'public, max-age=3600' });
  return null;
}

/** Whether `vite build` has made the dashboard in `directory`. */
export function dashboardBuilt(directory: string): boolean {
  return existsSync(join(directory, 'index.html'));
}

function file(path: string, name: string, headers: Record<string, string>): SiteAnswer | null {
  let body: Buffer;
  try {
    body = readFileSync(path);
  } catch {
    return null;
  }
  return {
    status: 200,
    headers: { 'content-type': TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream', 'x-content-type-options': 'nosniff', ...headers },
    body,
  };
}
