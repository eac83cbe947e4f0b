import { SluiceError } from './errors.js';

export interface TransportOptions {
  /** The service's address, e.g. `http://127.0.0.1:8000`. */
  url: string;
  apiKey: string;
  /** A fetch to use instead of the global one (a proxy's, a test's). */
  fetch?: typeof fetch;
}

export type Query = Record<string, string | number | boolean | undefined>;

/** Requests to the service: the key on each, JSON in and out, errors as SluiceError. */
export class Transport {
  readonly base: string;
  private readonly fetcher: typeof fetch;

  constructor(private readonly options: TransportOptions) {
    this.base = options.url.replace(/\/+$/, '');
    this.fetcher = options.fetch ?? ((input, init) => fetch(input, init));
  }

  url(path: string, query: Query = {}): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value));
    const text = search.toString();
    return `${this.base}${path}${text ? `?${text}` : ''}`;
  }

  /** A request with the key; the response as it came, once it is a success. */
  async send(
    method: string,
    path: string,
    init: { query?: Query; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { 'x-api-key': this.options.apiKey, ...init.headers };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const response = await this.fetcher(this.url(path, init.query), {
      method,
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.signal,
    });
    if (!response.ok) throw await SluiceError.from(response);
    return response;
  }

  async json<T>(method: string, path: string, init: Parameters<Transport['send']>[2] = {}): Promise<T> {
    return (await (await this.send(method, path, init)).json()) as T;
  }

  /** A request to a URL the service signed (an upload, a file): no key, which must not travel elsewhere. */
  async unkeyed(url: string, init: RequestInit): Promise<Response> {
    const response = await this.fetcher(url, init);
    if (!response.ok) throw await SluiceError.from(response);
    return response;
  }
}
