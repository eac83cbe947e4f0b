import { cpSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync, type BuildOptions } from 'esbuild';

/** The repository root (this file is infra/bundle.ts). */
export const REPOSITORY_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The Lambda entry points, by output name: the code asset holds `route.mjs`, `deliver.mjs`,
 * `onBuildEvent.mjs`, `sweep.mjs`, `onTaskStopped.mjs` and `dashboard.mjs`, so handlers are `route.handler`, `deliver.handler`, ...
 */
export const LAMBDA_ENTRIES = {
  route: 'handlers/http/route.ts',
  deliver: 'handlers/webhooks/deliver.ts',
  onBuildEvent: 'handlers/build/onBuildEvent.ts',
  sweep: 'handlers/sweeper/sweep.ts',
  onTaskStopped: 'handlers/compute/onTaskStopped.ts',
  dashboard: 'handlers/http/dashboard.ts',
} as const;

/** The dashboard's build (`npm run build`), which the bundle carries as `dashboard/` for handlers/http/dashboard.ts. */
export const DASHBOARD_BUILD = 'web/dist';

export type LambdaEntry = keyof typeof LAMBDA_ENTRIES;

/** The worker agent, the command of every version's image (with the Python SDK beside it). */
export const WORKER_ENTRY = 'handlers/worker/main.ts';
export const PYTHON_SDK_DIR = 'python/sluice';
/** The SDK under Sieve's names (`import sieve`), beside it in the image. */
export const PYTHON_SIEVE_DIR = 'python/sieve';

/** ESM bundles may still hold CommonJS dependencies that call require(): give them one. */
const REQUIRE_BANNER = "import { createRequire as __sluiceCreateRequire } from 'node:module'; const require = __sluiceCreateRequire(import.meta.url);";

const COMMON: BuildOptions = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  outExtension: { '.js': '.mjs' },
  banner: { js: REQUIRE_BANNER },
  // Paths in the output are relative to the repository, so the asset hash does not depend on where it is checked out.
  absWorkingDir: REPOSITORY_ROOT,
  logLevel: 'error',
  legalComments: 'none',
};

let outputRoot: string | undefined;
let lambdaDir: string | undefined;
let workerDir: string | undefined;

const ROOT_PREFIX = 'sluice-bundle-';

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * One temporary folder per process, `sluice-bundle-<pid>`, removed when the process exits
 * (after synth has copied the assets). A process killed before its exit handler ran (a test
 * worker) leaves its folder behind: the next bundling removes folders of processes gone.
 */
function bundleRoot(): string {
  if (!outputRoot) {
    for (const entry of readdirSync(tmpdir())) {
      const pid = Number(entry.slice(ROOT_PREFIX.length));
      if (entry.startsWith(ROOT_PREFIX) && Number.isInteger(pid) && pid > 0 && !isRunning(pid)) rmSync(join(tmpdir(), entry), { recursive: true, force: true });
    }
    const root = join(tmpdir(), `${ROOT_PREFIX}${process.pid}`);
    rmSync(root, { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
    process.once('exit', () => rmSync(root, { recursive: true, force: true }));
    outputRoot = root;
  }
  return outputRoot;
}

/** Fails, naming them, when entry points (paths relative to `root`) do not exist. */
export function requireEntries(paths: readonly string[], root = REPOSITORY_ROOT): void {
  const missing = paths.filter((path) => !existsSync(join(root, path)));
  if (missing.length > 0) {
    throw new Error(`Cannot bundle the Lambda code: missing entry point${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (each must export \`handler\`)`);
  }
}

/**
 * Bundles every Lambda entry point into one folder, once per process (esbuild runs once, not
 * once per function as NodejsFunction would), and returns the folder: every function of
 * every stack uses `Code.fromAsset(folder)`, so the deployment has one code asset. The AWS SDK
 * v3 is the Lambda runtime's own; better-sqlite3 is the local mode's and is never loaded on AWS.
 */
export function bundleLambdaCode(): string {
  if (lambdaDir) return lambdaDir;
  const entries = Object.values(LAMBDA_ENTRIES);
  requireEntries(entries);
  const outdir = join(bundleRoot(), 'lambda');
  buildSync({ ...COMMON, entryPoints: { ...LAMBDA_ENTRIES }, outdir, external: ['@aws-sdk/*', 'better-sqlite3'] });
  // Without a build the dashboard's route answers how to make one, as the local service does.
  if (existsSync(join(REPOSITORY_ROOT, DASHBOARD_BUILD, 'index.html')))
    cpSync(join(REPOSITORY_ROOT, DASHBOARD_BUILD), join(outdir, 'dashboard'), { recursive: true });
  lambdaDir = outdir;
  return outdir;
}

/**
 * The worker agent for the images CodeBuild builds: `worker.mjs` (with the AWS SDK bundled in,
 * since a container has none) and the Python SDK as `sdk/sluice` and `sdk/sieve`. Once per process.
 */
export function bundleWorker(): string {
  if (workerDir) return workerDir;
  requireEntries([WORKER_ENTRY, PYTHON_SDK_DIR, PYTHON_SIEVE_DIR]);
  const outdir = join(bundleRoot(), 'worker');
  buildSync({ ...COMMON, entryPoints: { worker: WORKER_ENTRY }, outdir, external: ['better-sqlite3'] });
  for (const [source, name] of [
    [PYTHON_SDK_DIR, 'sluice'],
    [PYTHON_SIEVE_DIR, 'sieve'],
  ] as const) {
    cpSync(join(REPOSITORY_ROOT, source), join(outdir, 'sdk', name), {
      recursive: true,
      filter: (path) => !path.includes('__pycache__') && !path.endsWith('.pyc'),
    });
  }
  workerDir = outdir;
  return outdir;
}
