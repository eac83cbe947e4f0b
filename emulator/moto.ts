import { spawn, spawnSync } from 'node:child_process';
import { setTimeout as wait } from 'node:timers/promises';
import { freePort } from './freePort.js';

export interface MotoServer {
  endpoint: string;
  close(): Promise<void>;
}

export class MotoMissingError extends Error {
  override name = 'MotoMissingError';
  constructor() {
    super("moto_server is not installed: the AWS emulation needs it (Python moto 5). Install it with: pip install 'moto[server]>=5'");
  }
}

/** Whether `moto_server` is on PATH. */
export function motoInstalled(): boolean {
  return spawnSync('sh', ['-c', 'command -v moto_server'], { stdio: 'ignore' }).status === 0;
}

/**
 * `moto_server` on a free loopback port: SQS, S3, ECS, Application Auto Scaling, CloudWatch,
 * CodeBuild, IAM, EventBridge, Step Functions, CloudWatch Logs. It keeps everything in memory,
 * so each start is a fresh account.
 */
export async function startMoto(): Promise<MotoServer> {
  if (!motoInstalled()) throw new MotoMissingError();
  const port = await freePort();
  const child = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`moto_server exited with ${child.exitCode}: ${stderr}`);
    const up = await fetch(`${endpoint}/moto-api/`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`moto_server did not answer on ${endpoint} within 30 s: ${stderr}`);
    }
    await wait(100);
  }
  return {
    endpoint,
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
