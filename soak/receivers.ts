import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Random } from './random.js';
import { sleep } from './http.js';

/** How a receiver treats what arrives: as a real endpoint does on a good day, and on bad ones. */
export type ReceiverMood = 'ok' | 'slow' | 'error' | 'hang' | 'down';

export interface Delivery {
  /** The path names the push: /<tag>. */
  path: string;
  webhookId: string;
  type: string;
  body: any;
  at: number;
}

/**
 * A webhook receiver on loopback whose mood changes while the soak runs: it answers 200, or
 * slowly, or 500, or never (the sender's timeout ends it), or its port is closed. Every request
 * that arrives is recorded, answered or not: a receiver saw it, and drops repeats by webhook-id.
 */
export class MoodyReceiver {
  readonly deliveries: Delivery[] = [];
  private mood: ReceiverMood = 'ok';
  private server?: Server;
  private port = 0;
  readonly moods: Record<ReceiverMood, number> = { ok: 0, slow: 0, error: 0, hang: 0, down: 0 };

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        let body: any = null;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          body = null;
        }
        const webhookId = String(request.headers['webhook-id'] ?? '');
        this.deliveries.push({ path: request.url ?? '/', webhookId, type: String(body?.type ?? ''), body, at: Date.now() });
        if (this.mood === 'hang') return;
        if (this.mood === 'error') return void response.writeHead(500).end();
        if (this.mood === 'slow') return void setTimeout(() => response.writeHead(200).end(), 1_500);
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Moves through moods until `stopped`: mostly well, now and then a bad spell of a few seconds. */
  async misbehave(random: Random, stopped: () => boolean): Promise<void> {
    while (!stopped()) {
      const mood = random.weighted<ReceiverMood>({ ok: 6, slow: 1, error: 1, hang: 1, down: 1 });
      this.moods[mood] += 1;
      await this.become(mood);
      await sleep(mood === 'ok' ? random.between(5_000, 20_000) : random.between(2_000, 10_000));
    }
    await this.become('ok');
  }

  private async become(mood: ReceiverMood): Promise<void> {
    if (mood === 'down' && this.mood !== 'down') await this.close();
    if (mood !== 'down' && this.mood === 'down') await this.start();
    this.mood = mood;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server?.listening) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
