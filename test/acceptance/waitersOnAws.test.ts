import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, deployDirectory, until, writeFunctionDir } from '../e2e/support/testService.js';
import { startAwsTarget, type AwsTarget } from './targets.js';

/**
 * Waiters (awaits, event streams) hold a Lambda execution each for as long as they wait. On
 * `npm run aws:local` with an account of 16 concurrent executions, of which the waiting functions
 * reserve 2 each (8 in all), far more waiters than that must neither throttle pushes and reads
 * nor slow them: the waiters past their reservation are the ones throttled.
 */
const ACCOUNT_CONCURRENCY = 16;
const WAITER_RESERVATION = 2;
/** More waiters, of each kind, than the whole account could run. */
const WAITERS = 10;
/** What a push or a read may take while the waiters wait. */
const NORMAL_LATENCY_MS = 2000;

const FUNCTIONS = {
  'main.py': `import time
import sluice

@sluice.function(name="slow")
def slow(seconds: float) -> str:
    time.sleep(seconds)
    return "done"
`,
};

describe('waiters on AWS, past the account’s Lambda concurrency', () => {
  let target: AwsTarget;
  const call = (method: string, path: string, body?: unknown) => api(target.url, target.key, method, path, body);
  const timed = async <T>(work: () => Promise<T>) => {
    const started = Date.now();
    const result = await work();
    return { result, ms: Date.now() - started };
  };

  beforeAll(async () => {
    target = await startAwsTarget({ lambdaConcurrency: ACCOUNT_CONCURRENCY, waiterConcurrency: { api: WAITER_RESERVATION, longAwait: WAITER_RESERVATION } });
    // The job only has to stay unfinished while the waiters wait: it may still be queued for the build.
    const deployed = await deployDirectory(target, await writeFunctionDir(FUNCTIONS));
    expect(deployed.status, JSON.stringify(deployed.body)).toBeLessThan(300);
  }, 60_000);
  afterAll(async () => target?.close());

  it('throttles the waiters past their reservation while pushes and reads answer 200 at normal latency', async () => {
    const push = () => call('POST', '/v2/push', { function: 'local/slow', inputs: { seconds: 60 } });
    const slow = await push();
    expect(slow.status).toBe(200);
    const jobId = slow.body.id as string;
    // Warm: the latencies below are those of warm functions, as under steady traffic.
    expect((await call('GET', `/v2/jobs/${jobId}`)).status).toBe(200);

    const waiter = (url: string) => {
      const controller = new AbortController();
      const one = { done: false, answered: Promise.resolve(0), stop: () => controller.abort() };
      one.answered = fetch(url, { headers: { 'x-api-key': target.key }, signal: controller.signal })
        .then(async (response) => (await response.text(), response.status))
        .catch(() => 0)
        .finally(() => (one.done = true));
      return one;
    };
    const waiters = [
      ...Array.from({ length: WAITERS }, () => waiter(`${target.url}/v2/jobs/${jobId}/await`)),
      ...Array.from({ length: WAITERS }, () => waiter(`${target.awaitBase}v2/jobs/${jobId}/await`)),
      ...Array.from({ length: WAITERS }, () => waiter(`${target.url}/v2/jobs/${jobId}/events`)),
    ];
    try {
      // Those past the reservation are throttled at once: API Gateway answers 500, the function URL 429.
      await until(async () => waiters.filter((one) => one.done).length >= 3 * (WAITERS - WAITER_RESERVATION), 10_000, 50);

      for (let round = 0; round < 5; round++) {
        const pushed = await timed(push);
        expect(pushed.result.status).toBe(200);
        expect(pushed.ms).toBeLessThan(NORMAL_LATENCY_MS);
        const read = await timed(() => call('GET', `/v2/jobs/${pushed.result.body.id as string}`));
        expect(read.result.status).toBe(200);
        expect(read.ms).toBeLessThan(NORMAL_LATENCY_MS);
      }
    } finally {
      for (const one of waiters) one.stop();
    }
    const statuses = await Promise.all(waiters.map((one) => one.answered));
    const ofKind = (kind: number) => statuses.slice(kind * WAITERS, (kind + 1) * WAITERS);
    const [apiAwaits, longAwaits, streams] = [ofKind(0), ofKind(1), ofKind(2)];
    // Each kind: its reservation's worth still waiting when stopped, every other one throttled.
    expect(apiAwaits.filter((status) => status === 500)).toHaveLength(WAITERS - WAITER_RESERVATION);
    expect(longAwaits.filter((status) => status === 429)).toHaveLength(WAITERS - WAITER_RESERVATION);
    expect(streams.filter((status) => status === 500)).toHaveLength(WAITERS - WAITER_RESERVATION);
  }, 60_000);
});
