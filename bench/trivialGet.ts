import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runLoadGenerator } from './loadGenerator.js';

const CONNECTIONS = 32;
const ROUND_S = 3;
const ROUNDS = 3;

const script = (name: string) => fileURLToPath(new URL(name, import.meta.url));

/** Runs httpLoad.ts against `url` for one round; requests per second answered 200. */
async function load(url: string, apiKey: string): Promise<number> {
  const result = await runLoadGenerator<{ requests: number; seconds: number; statuses: Record<string, number> }>('./httpLoad.ts', [
    url,
    apiKey,
    String(CONNECTIONS),
    String(ROUND_S),
  ]);
  return (result.statuses['200'] ?? 0) / result.seconds;
}

/**
 * GET /v2/organization on the service against a plain node:http server answering the same JSON
 * after comparing the key, both loaded by the same client (32 keep-alive connections). Rounds
 * alternate between the two, so load from elsewhere on the machine falls on both alike; each
 * side's figure is its median round.
 */
export async function benchTrivialGet(serviceUrl: string, apiKey: string, body: string): Promise<{ sluice: number; plain: number }> {
  const peer = spawn(process.execPath, ['--import', 'tsx', script('./plainHttpServer.ts'), apiKey, body], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const peerUrl = await new Promise<string>((resolve, reject) => {
      peer.stdout.on('data', (chunk: Buffer) => {
        const url = /listening on (\S+)/.exec(chunk.toString())?.[1];
        if (url) resolve(url);
      });
      peer.once('exit', (code) => reject(new Error(`the plain server exited with ${code}`)));
    });
    const rates = { sluice: [] as number[], plain: [] as number[] };
    await load(`${peerUrl}/v2/organization`, apiKey); // warm-up, both
    await load(`${serviceUrl}/v2/organization`, apiKey);
    for (let round = 0; round < ROUNDS; round++) {
      rates.plain.push(await load(`${peerUrl}/v2/organization`, apiKey));
      rates.sluice.push(await load(`${serviceUrl}/v2/organization`, apiKey));
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
    return { sluice: median(rates.sluice), plain: median(rates.plain) };
  } finally {
    peer.kill('SIGTERM');
  }
}
