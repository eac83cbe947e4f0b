import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { loadBullmq } from './bullmq.js';
import type { Figures, Round } from './stats.js';
import { cpuSeconds, figuresFrom, peakRssMb, runConcurrently, summedRounds, wallMs } from './stats.js';
import { HEADLINE_FUNCTION, HEADLINE_VALUE } from './pushRequest.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function waitForLine(child: ChildProcess, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (pattern.test(seen)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${seen}`)));
  });
}

/** The BullMQ side of the throughput rounds, open between its latencies and its figures. */
export interface BullmqSide {
  /** One round of the throughput run, counted in its figures unless `measured` is false. */
  round(measured?: boolean): Promise<Round>;
  /** The figures: latencies, and the rounds summed. */
  finish(): Promise<Figures>;
  stop(): Promise<void>;
}

/**
 * The same workload on BullMQ: a local Redis server (no persistence) and a no-op worker process,
 * its latencies measured and warmed up, ready for throughput rounds of `perRound` jobs.
 */
export async function openBullmq(options: {
  sequential: number;
  warmup: number;
  perRound: number;
  inFlight: number;
  concurrency: number;
}): Promise<BullmqSide> {
  const port = await freePort();
  const redis = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'inherit'] });
  await waitForLine(redis, /Ready to accept connections/);
  const workerProcess = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./bullmqWorker.ts', import.meta.url)), String(port), String(options.concurrency)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const { Queue, QueueEvents } = await loadBullmq();
  const connection = { host: '127.0.0.1', port };
  const queue = new Queue('bench', { connection });
  const events = new QueueEvents('bench', { connection });
  const stop = async () => {
    await events.close();
    await queue.close();
    workerProcess.kill('SIGTERM');
    redis.kill('SIGTERM');
  };
  try {
    await waitForLine(workerProcess, /ready/);
    // 32 waiters at once add a listener each: not a leak.
    queue.setMaxListeners(0);
    events.setMaxListeners(0);
    await events.waitUntilReady();
    const pushToStart: number[] = [];
    const pushToResult: number[] = [];
    const awaitWake: number[] = [];
    for (let i = 0; i < options.sequential; i++) {
      // BullMQ stamps processedOn and finishedOn in whole milliseconds: compare in whole milliseconds.
      const sent = Math.floor(wallMs());
      const job = await queue.add(HEADLINE_FUNCTION, { value: HEADLINE_VALUE }, { removeOnComplete: false });
      await job.waitUntilFinished(events);
      const received = wallMs();
      const done = await queue.getJob(job.id as string);
      pushToStart.push((done?.processedOn ?? Number.NaN) - sent);
      pushToResult.push(received - sent);
      awaitWake.push(received - (done?.finishedOn ?? Number.NaN));
    }
    const job = async () => {
      const added = await queue.add(HEADLINE_FUNCTION, { value: HEADLINE_VALUE }, { removeOnComplete: false });
      await added.waitUntilFinished(events);
    };
    await runConcurrently(options.warmup, options.inFlight, job);
    const rounds: Round[] = [];
    return {
      async round(measured = true) {
        const before = { redis: await cpuSeconds(redis.pid as number), worker: await cpuSeconds(workerProcess.pid as number), client: process.cpuUsage() };
        const seconds = await runConcurrently(options.perRound, options.inFlight, job);
        const [redisAfter, workerAfter, client] = [
          await cpuSeconds(redis.pid as number),
          await cpuSeconds(workerProcess.pid as number),
          process.cpuUsage(before.client),
        ];
        const round = {
          jobs: options.perRound,
          seconds,
          cpuMicros: {
            service: (redisAfter.own - before.redis.own) * 1e6,
            workers: (workerAfter.own - before.worker.own) * 1e6,
            client: client.user + client.system,
          },
        };
        if (measured) rounds.push(round);
        return round;
      },
      async finish() {
        const rss = (await peakRssMb(redis.pid as number)) + (await peakRssMb(workerProcess.pid as number));
        return figuresFrom({ pushToStart, pushToResult, awaitWake }, { ...summedRounds(rounds), peakRssMb: rss });
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
