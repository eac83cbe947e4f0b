import { session } from './session.js';

/** An answer that is not 2xx, with the API's `detail` (a string, or 422's list of problems). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    detail: unknown,
  ) {
    super(describeDetail(status, detail));
  }
}

function describeDetail(status: number, detail: unknown): string {
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) return detail.map((item: { loc?: unknown[]; msg?: string }) => `${(item.loc ?? []).join('.')}: ${item.msg ?? ''}`).join('; ');
  return `HTTP ${status}`;
}

/** Called when the key stops working (revoked): the app goes back to sign-in. */
let onUnauthorized: () => void = () => undefined;
export const whenUnauthorized = (callback: () => void) => {
  onUnauthorized = callback;
};

export const headersWithKey = (extra: Record<string, string> = {}): Record<string, string> => ({ 'X-API-Key': session.key() ?? '', ...extra });

/** A call to the public API with the session's key, as any client makes it. */
export async function api<T>(path: string, init: { method?: string; body?: unknown; key?: string; signal?: AbortSignal } = {}): Promise<T> {
  const headers: Record<string, string> = { 'X-API-Key': init.key ?? session.key() ?? '' };
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(path, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: init.signal,
  });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = { detail: text };
  }
  if (!response.ok) {
    if (response.status === 401 && init.key === undefined) onUnauthorized();
    throw new ApiError(response.status, (parsed as { detail?: unknown } | undefined)?.detail);
  }
  return parsed as T;
}

/** A path with its query, leaving out empty values. */
export function withQuery(path: string, query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** `owner/name` as path segments, each encoded. */
export const functionPath = (owner: string, name: string) => `/v2/functions/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
