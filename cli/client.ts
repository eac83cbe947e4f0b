import { readFileSync } from 'node:fs';
import { apiKeyPath } from '../shared/app/bootstrapKey.js';
import { loadConfig } from '../shared/config.js';

export interface ClientSettings {
  url: string;
  apiKey: string;
}

/**
 * Where the CLI talks to: SLUICE_URL (default http://127.0.0.1:8080) with SLUICE_API_KEY,
 * or, for a local service, the key the service wrote to <data dir>/api-key.
 */
export function clientSettings(env: NodeJS.ProcessEnv = process.env): ClientSettings {
  const url = (env.SLUICE_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
  const apiKey = env.SLUICE_API_KEY ?? readLocalKey(env);
  if (!apiKey) {
    throw new CliError('No API key: set SLUICE_API_KEY (the local service prints one at start and keeps it in .data/api-key).');
  }
  return { url, apiKey };
}

function readLocalKey(env: NodeJS.ProcessEnv): string | undefined {
  try {
    return readFileSync(apiKeyPath(loadConfig(env).dataDir), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** An error to show the user as it is, without a stack trace. */
export class CliError extends Error {
  override name = 'CliError';
}

/** A JSON request to the service; a non-2xx answer becomes a CliError carrying its detail. */
export async function callApi<T>(settings: ClientSettings, method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${settings.url}${path}`, {
      method,
      headers: { 'x-api-key': settings.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new CliError(`Cannot reach the service at ${settings.url} (${(error as Error).cause ?? (error as Error).message}). Is it running? Start it with: npm start`);
  }
  const text = await response.text();
  const parsed = text ? (JSON.parse(text) as unknown) : undefined;
  if (!response.ok) throw new CliError(`${method} ${path} failed (${response.status}): ${formatDetail(parsed)}`);
  return parsed as T;
}

function formatDetail(body: unknown): string {
  const detail = (body as { detail?: unknown } | undefined)?.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    return detail.map((issue: { loc?: unknown[]; msg?: string }) => `${(issue.loc ?? []).join('.')}: ${issue.msg}`).join('; ');
  }
  return JSON.stringify(body);
}
