import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  path: string;
  at: number;
  headers: Record<string, string | string[] | undefined>;
  raw: string;
  body: any;
}

/**
 * A real HTTP receiver on loopback. Each path answers with the statuses queued for it (then
 * 200), or hangs while `hang` is set; everything that arrives is recorded.
 */
export async function startWebhookReceiver(port = 0) {
  const received: ReceivedWebhook[] = [];
  const planned = new Map<string, number[]>();
  const hanging = new Set<string>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const raw = Buffer.concat(chunks).toString('utf8');
      received.push({ path, at: Date.now(), headers: request.headers, raw, body: JSON.parse(raw) });
      if (hanging.has(path)) return; // no answer: the sender's timeout must end it
      const status = planned.get(path)?.shift() ?? 200;
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    port: (server.address() as AddressInfo).port,
    url: (path: string) => `${base}${path}`,
    received,
    at: (path: string) => received.filter((hook) => hook.path === path),
    failNext: (path: string, ...statuses: number[]) => planned.set(path, statuses),
    hang: (path: string) => hanging.add(path),
    async waitFor(path: string, count: number, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.filter((hook) => hook.path === path).length < count) {
        if (Date.now() > deadline) throw new Error(`${path}: ${received.filter((hook) => hook.path === path).length} of ${count} webhooks arrived`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return received.filter((hook) => hook.path === path);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
