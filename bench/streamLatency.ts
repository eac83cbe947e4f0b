// How soon a streamed output reaches a client following the job's events (issue 33: within 5 ms
// p99 of the function yielding it). The function stamps each output with its wall clock as it
// yields; the client, on the same machine, takes its own wall clock as the event arrives.
import type { createJsonClient } from './httpClient.js';
import { deployWarm } from './jobShapes.js';
import { percentile, wallMs } from './stats.js';

type Client = ReturnType<typeof createJsonClient>;

export interface StreamLatency {
  outputs: number;
  p50: number;
  p99: number;
  max: number;
}

const STAMPS = `def stamps():
    import time
    time.sleep(0.2)  # the client's stream is open before the first output
    for _ in range(10):
        yield repr(time.time())
        time.sleep(0.02)
`;

/** Milliseconds from each yield to its event's arrival, over `jobs` jobs of 10 outputs, one job at a time. */
export async function benchStreamLatency(target: { url: string; key: string; call: Client; workDir: string }, jobs: number): Promise<StreamLatency> {
  await deployWarm(target.call, target.workDir, 'stamps', STAMPS, 1);
  const delays: number[] = [];
  for (let job = 0; job < jobs; job++) {
    const pushed = await target.call<{ id: string }>('POST', '/v2/push', { function: 'local/stamps', inputs: {} });
    if (pushed.status !== 200) throw new Error(`pushing local/stamps: ${pushed.status} ${JSON.stringify(pushed.body)}`);
    delays.push(...(await followOutputs(target, pushed.body.id)));
  }
  await target.call('POST', '/v2/functions/local/stamps/versions/latest/edit', { minimum_replicas: 0, maximum_replicas: 0 });
  return { outputs: delays.length, p50: percentile(delays, 50), p99: percentile(delays, 99), max: Math.max(...delays) };
}

/** Reads the job's event stream to `done`: each output's delay from its stamp to its arrival. */
async function followOutputs(target: { url: string; key: string }, jobId: string): Promise<number[]> {
  const response = await fetch(`${target.url}/v2/jobs/${jobId}/events`, { headers: { 'X-API-Key': target.key } });
  if (!response.ok || !response.body) throw new Error(`following job ${jobId}: ${response.status}`);
  const delays: number[] = [];
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of response.body) {
    const arrived = wallMs();
    buffered += decoder.decode(chunk as Uint8Array, { stream: true });
    let end: number;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const event = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const type = /^event: (.*)$/m.exec(event)?.[1];
      if (type === 'done') return delays;
      const stamp = type === 'output' ? /(\d{9,}\.\d+)/.exec(event)?.[1] : undefined;
      if (stamp !== undefined) delays.push(arrived - Number(stamp) * 1000);
    }
  }
  return delays;
}
