import { readFile } from 'node:fs/promises';
import { apiKeyPath } from '../shared/app/bootstrapKey.js';
import { resolve } from 'node:path';
import { readUserConfig, userConfigPath } from './settings/userConfig.js';
import { CliError } from './cliError.js';

export { CliError } from './cliError.js';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

export interface ClientSettings {
  url: string;
  apiKey: string;
  /** Where the URL and the key came from, as `whoami` tells it. */
  source?: { url: string; apiKey: string };
}

/**
 * Where the CLI talks to, from the first of: SLUICE_URL / SLUICE_API_KEY, the user config that
 * `sluice login` or the first `sluice start` wrote, and (for a service on this machine) the key a
 * local service keeps in its data directory (SLUICE_DATA_DIR, default ./.data).
 */
export async function clientSettings(env: NodeJS.ProcessEnv = process.env): Promise<ClientSettings> {
  const saved = await readUserConfig(env);
  const configPath = userConfigPath(env);
  const url = (env.SLUICE_URL ?? saved.url ?? DEFAULT_URL).replace(/\/+$/, '');
  const urlSource = env.SLUICE_URL ? 'SLUICE_URL' : saved.url ? configPath : 'the default';
  // The saved key goes only to the URL it was saved with: another server never sees it.
  const savedKey = saved.apiKey && sameUrl(saved.url ?? DEFAULT_URL, url) ? saved.apiKey : undefined;
  const dataDir = env.SLUICE_DATA_DIR ?? '.data';
  const localKey = !env.SLUICE_API_KEY && !savedKey && isLoopback(url) ? await readLocalKey(dataDir) : undefined;
  const apiKey = env.SLUICE_API_KEY ?? savedKey ?? localKey;
  if (!apiKey) {
    throw new CliError(`No API key for ${url}: run \`sluice login --url ${url} --key KEY\` (a local service prints its key at start), or set SLUICE_API_KEY.`);
  }
  const keySource = env.SLUICE_API_KEY ? 'SLUICE_API_KEY' : savedKey ? configPath : apiKeyPath(resolve(dataDir));
  return { url, apiKey, source: { url: urlSource, apiKey: keySource } };
}

const sameUrl = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

function isLoopback(url: string): boolean {
  try {
    return ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(url).hostname);
  } catch {
    throw new CliError(`"${url}" is not a URL: set SLUICE_URL (or sluice login --url) to e.g. ${DEFAULT_URL}.`);
  }
}

async function readLocalKey(dataDir: string): Promise<string | undefined> {
  return (await readFile(apiKeyPath(resolve(dataDir)), 'utf8').catch(() => '')).trim() || undefined;
}

/** A non-2xx answer of the service: its status and the detail it gave. */
export class ApiError extends CliError {
  override name = 'ApiError';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** A request to the service; a network failure becomes a CliError that says where it went. */
export async function send(
  settings: ClientSettings,
  method: string,
  path: string,
  init: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Response> {
  const json = init.body !== undefined;
  try {
    return await fetch(`${settings.url}${path}`, {
      method,
      headers: { 'x-api-key': settings.apiKey, ...(json ? { 'content-type': 'application/json' } : {}), ...init.headers },
      body: json ? JSON.stringify(init.body) : undefined,
      signal: init.signal,
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new CliError(
      `Cannot reach the service at ${settings.url} (${(error as Error).cause ?? (error as Error).message}). Is it running? Start one with: sluice start`,
    );
  }
}

/** A JSON request to the service; a non-2xx answer becomes an ApiError carrying its detail. */
export async function callApi<T>(settings: ClientSettings, method: string, path: string, body?: unknown): Promise<T> {
  const response = await send(settings, method, path, { body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    throw new ApiError(`${method} ${path} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`, response.status);
  }
  if (!response.ok) throw new ApiError(`${method} ${path} failed (${response.status}): ${formatDetail(parsed)}`, response.status);
  return parsed as T;
}

/** The ApiError for a non-2xx answer whose body has not been read yet. */
export async function apiErrorOf(method: string, path: string, response: Response): Promise<ApiError> {
  const text = await response.text();
  let detail: string;
  try {
    detail = formatDetail(JSON.parse(text));
  } catch {
    detail = text.slice(0, 200);
  }
  return new ApiError(`${method} ${path} failed (${response.status}): ${detail}`, response.status);
}

function formatDetail(body: unknown): string {
  const detail = (body as { detail?: unknown } | undefined)?.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    return detail.map((issue: { loc?: unknown[]; msg?: string }) => `${(issue.loc ?? []).join('.')}: ${issue.msg}`).join('; ');
  }
  return JSON.stringify(body);
}
