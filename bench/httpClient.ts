import { Agent, request } from 'node:http';

/** A lean keep-alive JSON client: the bench's own overhead shares the machine with the service. */
export function createJsonClient(baseUrl: string, apiKey: string, maxSockets: number) {
  const url = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets });
  return function call<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          method,
          path,
          headers: { 'x-api-key': apiKey, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as T }));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  };
}
