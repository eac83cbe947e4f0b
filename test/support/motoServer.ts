import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { S3Client } from '@aws-sdk/client-s3';

export interface MotoServer {
  /** Where it listens, e.g. for AWS_ENDPOINT_URL. */
  endpoint: string;
  /** An S3 client for it, with fake credentials and path-style addressing. */
  s3(): S3Client;
  close(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 30_000;
const INSTALL_HINT = "moto_server was not found: install it with `pip install 'moto[server]>=5'`";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A moto_server on a free port of 127.0.0.1, answering once this resolves; its state is in memory. */
export async function startMotoServer(): Promise<MotoServer> {
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const child = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let failure: Error | null = null;
  child.once('error', (error: NodeJS.ErrnoException) => (failure = error.code === 'ENOENT' ? new Error(INSTALL_HINT) : error));
  child.once('exit', (code) => (failure ??= new Error(`moto_server exited (${code}) before answering: ${stderr}`)));
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (!(await fetch(`${endpoint}/moto-api/`).then((response) => response.ok, () => false))) {
    if (failure) throw failure;
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error(`moto_server did not answer on ${endpoint} within ${STARTUP_TIMEOUT_MS / 1000} s: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const clients: S3Client[] = [];
  return {
    endpoint,
    s3() {
      const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'fake', secretAccessKey: 'fake' } });
      clients.push(client);
      return client;
    },
    async close() {
      for (const client of clients) client.destroy();
      if (child.exitCode !== null) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await gone;
    },
  };
}
