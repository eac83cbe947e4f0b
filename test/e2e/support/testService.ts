import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createLogger } from '../../../shared/app/logger.js';
import type { RunningService } from '../../../shared/app/localService.js';
import { startLocalService } from '../../../shared/app/localService.js';
import { loadConfig } from '../../../shared/config.js';
import { inspectFunctions } from '../../../shared/packaging/inspectFunctions.js';
import { packDirectory } from '../../../shared/packaging/packDirectory.js';
import { uploadBundle } from '../../../cli/uploadBundle.js';

export interface TestService {
  url: string;
  /** The bootstrap key of organization `local`. */
  key: string;
  dataDir: string;
  running: RunningService;
  /** A new organization with its own key. */
  createOrganization(name: string): Promise<string>;
  /** Stops the service and starts it again over the same data directory, on the same port: a restart. */
  restart(): Promise<TestService>;
  close(): Promise<void>;
}

/** The real embedded service on a free port, over a fresh data directory (or the one given). */
export async function startTestService(env: Record<string, string> = {}, existingDataDir?: string): Promise<TestService> {
  return startOn(existingDataDir ?? (await mkdtemp(join(tmpdir(), 'sluice-test-'))), env, '0');
}

async function startOn(dataDir: string, env: Record<string, string>, port: string): Promise<TestService> {
  const config = loadConfig({ ...process.env, SLUICE_DATA_DIR: dataDir, PORT: port, SLUICE_LOG_LEVEL: 'silent', SLUICE_SHUTDOWN_GRACE_S: '0', ...env });
  const running = await startLocalService(config, createLogger(config));
  return {
    url: running.url,
    key: running.bootstrapKey.key,
    dataDir,
    running,
    createOrganization: async (name) => (await running.app.services.keys.createKey(name)).secret,
    async restart() {
      await running.close();
      return startOn(dataDir, env, new URL(running.url).port);
    },
    async close() {
      await running.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Stops the service (keeping its data directory) and starts it again on the same data. */
export async function restartTestService(service: TestService, env: Record<string, string> = {}): Promise<TestService> {
  await service.running.close();
  return startTestService(env, service.dataDir);
}

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
}

/** A JSON request over real HTTP. */
export async function api<T = any>(url: string, key: string | undefined, method: string, path: string, body?: unknown): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = {};
  if (key !== undefined) headers['x-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}

/** Writes files (path -> content) into a new temporary directory. */
export async function writeFunctionDir(files: Record<string, string>): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'sluice-fn-'));
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(directory, path)), { recursive: true });
    await writeFile(join(directory, path), content);
  }
  return directory;
}

/** Deploys a directory's first function over HTTP as `sluice deploy` does (an upload, then the deploy), and returns the deploy's answer. */
export async function deployDirectory(service: Pick<TestService, 'url' | 'key'>, directory: string, key = service.key, owner = 'local') {
  const inspected = await inspectFunctions(directory, 'python3');
  if (!inspected.ok) throw new Error(inspected.errors.join('; '));
  const metadata = inspected.functions[0] as { name: string };
  const uploadId = await uploadBundle({ url: service.url, apiKey: key }, await packDirectory(directory));
  return api(service.url, key, 'POST', `/v2/functions/${owner}/${metadata.name}/versions`, { metadata, upload_id: uploadId });
}

/** Polls a version until its build ends. */
export async function waitForBuild(
  service: Pick<TestService, 'url' | 'key'>,
  fn: string,
  versionId: string,
  key = service.key,
  timeoutMs = 30_000,
): Promise<any> {
  for (let attempt = 0; attempt < timeoutMs / 50; attempt++) {
    const { body } = await api(service.url, key, 'GET', `/v2/functions/${fn}/versions/${versionId}`);
    if (body.build_status === 'ready' || body.build_status === 'error') return body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`build of ${versionId} did not finish`);
}

export const pythonFunction = (name: string, extra = '') => `import sluice

@sluice.function(name="${name}"${extra})
def run(text: str, times: int = 1) -> str:
    return text * times
`;

/** Polls until `check` holds; fails the test when it does not within `timeoutMs`. */
export async function until(check: () => Promise<boolean>, timeoutMs = 15_000, intervalMs = 25): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
