import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';

export interface MotoServer {
  /** http://127.0.0.1:<port>, for a client's endpoint or AWS_ENDPOINT_URL. */
  endpoint: string;
  /** An S3 client for it, with fake credentials and path-style addressing; close() destroys it. */
  s3(): S3Client;
  /** An SQS client for it, with fake credentials; close() destroys it. */
  sqs(): SQSClient;
  /** Forgets every queue, bucket and message (moto's reset), for the next spec. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

const INSTALL_HINT = "moto_server was not found: install it with `pip install 'moto[server]>=5'`";

/** Whether `moto_server` is on PATH (moto 5: `pip install 'moto[server]'`). */
export function motoServerOnPath(): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((folder) => {
    try {
      accessSync(join(folder, 'moto_server'), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** A real moto_server on a free loopback port, answering before this resolves; its state is in memory; close() stops it. */
export async function startMotoServer(): Promise<MotoServer> {
  const port = await freePort();
  const child = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  let spawnError: Error | null = null;
  child.once('error', (error: NodeJS.ErrnoException) => (spawnError = error.code === 'ENOENT' ? new Error(INSTALL_HINT) : error));
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilAnswering(endpoint, child, () => spawnError);
  } catch (error) {
    child.kill();
    throw new Error(`moto_server did not start: ${(error as Error).message}\n${stderr}`);
  }
  const clients: { destroy(): void }[] = [];
  const credentials = { accessKeyId: 'fake', secretAccessKey: 'fake' };
  return {
    endpoint,
    s3() {
      const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
      clients.push(client);
      return client;
    },
    sqs() {
      const client = new SQSClient({ endpoint, region: 'us-east-1', credentials });
      clients.push(client);
      return client;
    },
    async reset() {
      await fetch(`${endpoint}/moto-api/reset`, { method: 'POST' });
    },
    close: () =>
      new Promise((resolve) => {
        for (const client of clients) client.destroy();
        if (child.exitCode !== null || spawnError) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitUntilAnswering(endpoint: string, child: ChildProcess, spawnError: () => Error | null, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const error = spawnError();
    if (error) throw error;
    if (child.exitCode !== null) throw new Error(`it exited with code ${child.exitCode}`);
    const answered = await fetch(`${endpoint}/moto-api/`).then(
      () => true,
      () => false,
    );
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no answer within ${timeoutMs} ms`);
}
