/** An answer the soak's clients got: the status and the parsed JSON body (or the text). */
export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

/**
 * One HTTP request as a client sends it, with a deadline. A refused or reset connection, or a
 * deadline passed, throws: the caller decides whether to retry (the service may be restarting).
 */
export async function request(
  url: string,
  init: { method?: string; key?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key !== undefined) headers['x-api-key'] = init.key;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: AbortSignal.timeout(init.timeoutMs ?? 30_000),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: kept as text for the report
  }
  return { status: response.status, body, headers: response.headers };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A status worth asking again for: the service is restarting, throttled, full, or busy with the same key. */
export const isTransient = (status: number) => status === 409 || status === 429 || status >= 500;
