// The aws section's measurements on `npm run aws:local`: the AWS usage of no-op jobs, job lists
// and webhook deliveries, counted by the emulation (emulator/usageMeter.ts), and push to first
// output on a version at zero tasks.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAwsLocal } from '../emulator/awsLocal.js';
import { awsLocalSettings } from '../emulator/settings.js';
import type { Usage } from '../emulator/usageMeter.js';
import { scaleUsage, usageBetween } from './awsCost.js';
import { deployFunction, pushAndAwait, pushToFirstOutput, pythonFunction } from './benchFunctions.js';
import { createJsonClient } from './httpClient.js';
import { wallMs } from './stats.js';

export interface AwsWorkloadFigures {
  timeScale: number;
  /** A no-op job pushed then awaited through the HTTP API, less the baseline of a version idling with one task. */
  perNoopJob: Usage;
  /** One page of GET /v2/jobs?limit=10, and of the function's jobs list. */
  perJobsPage: Usage;
  perFunctionJobsPage: Usage;
  /** One job.complete delivery: a webhook job less a no-op job. */
  perWebhook: Usage;
  /** The deployment with no version, idle: one sweeper run's usage (EventBridge runs it every minute). */
  perSweep: Usage;
  /** CloudWatch alarms one version's deploy created (its scaling alarms). */
  alarmsPerVersion: number;
  /** Push to first output on a version at zero tasks: wall milliseconds, and in AWS seconds. */
  /** `scaledMs`: the part spent in the emulation's scaled cadences, up to the alarm's scaling (0 when the push itself scaled the service). */
  idleFirstOutput: { wallMs: number; awsSeconds: number; scaledMs: number; startedBy: 'alarm' | 'push' | 'unknown' };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs the workload on a fresh emulation (the defaults of emulator/settings.ts), `jobs` jobs a phase. */
export async function measureAwsWorkload(jobs: number, idleSeconds: number, report: (line: string) => void): Promise<AwsWorkloadFigures> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sluice-bench-aws-'));
  const settings = awsLocalSettings({ SLUICE_PYTHON: process.env.SLUICE_PYTHON, SLUICE_PIP_ARGS: process.env.SLUICE_PIP_ARGS });
  // When the emulated Application Auto Scaling acted on an alarm, and when the product itself set a service's tasks.
  const scalings: { at: number; by: 'alarm' | 'push' }[] = [];
  const emulation = await startAwsLocal({
    ...settings,
    port: 0,
    dataDir,
    onEvent: (message) => {
      if (message.startsWith('Application Auto Scaling')) scalings.push({ at: wallMs(), by: 'alarm' });
      if (message.startsWith('AmazonEC2ContainerServiceV20141113.UpdateService -> 200')) scalings.push({ at: wallMs(), by: 'push' });
    },
  });
  const receiver = await startReceiver();
  try {
    const key = emulation.bootstrapKey.key;
    const call = createJsonClient(emulation.url, key, 8);
    const target = { url: emulation.url, key, call };
    const between = async (seconds: number) => {
      const before = emulation.usage();
      await sleep(seconds * 1000);
      return usageBetween(before, emulation.usage());
    };

    report(`aws: the deployment idle for ${idleSeconds} s (${idleSeconds * (settings.timeScale / 60)} AWS minutes), after its first sweep`);
    // The first sweep is a cold start, which a busy machine can stretch past a short window.
    while (Object.keys(emulation.usage().lambda).length === 0) await sleep(200);
    const idle = await between(idleSeconds);
    const sweeps = Object.values(idle.lambda).reduce((sum, fn) => sum + fn.invocations, 0);
    const perSweep = scaleUsage(idle, sweeps > 0 ? 1 / sweeps : 0);

    report('aws: deploying local/noop (one task) and local/first-output (none)');
    await deployFunction(target, dataDir, 'noop', pythonFunction('noop', 1, 1));
    await deployFunction(target, dataDir, 'first-output', pythonFunction('first-output', 0, 1, '"ok"'));
    await pushAndAwait(call, 'noop');

    report(`aws: the version idling with its task for ${idleSeconds} s (the baseline), then ${jobs} no-op jobs`);
    const baselinePerSecond = scaleUsage(await between(idleSeconds), 1 / idleSeconds);
    const phase = async (task: () => Promise<void>) => {
      const [before, started] = [emulation.usage(), wallMs()];
      await task();
      return usageBetween(before, emulation.usage(), scaleUsage(baselinePerSecond, (wallMs() - started) / 1000));
    };
    const perNoopJob = scaleUsage(
      await phase(async () => {
        for (let i = 0; i < jobs; i++) await pushAndAwait(call, 'noop');
      }),
      1 / jobs,
    );
    const pages = 10;
    const listed = async (path: string) =>
      scaleUsage(
        await phase(async () => {
          for (let i = 0; i < pages; i++) await call('GET', path);
        }),
        1 / pages,
      );
    const perJobsPage = await listed('/v2/jobs?limit=10');
    const perFunctionJobsPage = await listed('/v2/functions/local/noop/jobs?limit=10');

    report(`aws: ${jobs} jobs with a job.complete webhook to a local receiver`);
    const webhooks = [{ type: 'job.complete', url: receiver.url }];
    const webhookJobs = scaleUsage(
      await phase(async () => {
        for (let i = 0; i < jobs; i++) await pushAndAwait(call, 'noop', { webhooks });
        await receiver.waitFor(jobs, 120_000);
        // The executions end just after their delivery answers.
        await sleep(1000);
      }),
      1 / jobs,
    );
    const perWebhook = usageBetween(perNoopJob, webhookJobs);
    // The await function's duration is the job's, not the delivery's: left out of the difference, where it is only noise.
    for (const name of Object.keys(perWebhook.lambda)) if (name.startsWith('awaitJob')) delete perWebhook.lambda[name];

    report('aws: push to first output on local/first-output, at zero tasks');
    const pushed = await pushToFirstOutput(call, 'first-output');
    const scaling = scalings.find((event) => event.at >= pushed.sentAt);
    // Up to an alarm's scaling, the wait is the emulation's scaled cadences (SQS metrics, the alarm's
    // period); a scaling the push made itself, and all after, is real time: a process starting, the job.
    const scaledMs = scaling?.by === 'alarm' ? scaling.at - pushed.sentAt : 0;
    const awsSeconds = (scaledMs * settings.timeScale + (pushed.ms - scaledMs)) / 1000;
    // A version's alarms are put when its service is made, some after it reads ready: counted over the run, two versions.
    const alarmsPerVersion = (emulation.usage().requests['monitoring PutMetricAlarm'] ?? 0) / 2;
    return {
      timeScale: settings.timeScale,
      perNoopJob,
      perJobsPage,
      perFunctionJobsPage,
      perWebhook,
      perSweep,
      alarmsPerVersion,
      idleFirstOutput: { wallMs: pushed.ms, awsSeconds, scaledMs, startedBy: scaling?.by ?? 'unknown' },
    };
  } finally {
    await receiver.close();
    await emulation.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** A webhook receiver on 127.0.0.1 that answers 200 and counts what it received. */
async function startReceiver(): Promise<{ url: string; waitFor(count: number, timeoutMs: number): Promise<void>; close(): Promise<void> }> {
  let received = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received += 1;
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    async waitFor(count, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (received < count) {
        if (Date.now() > deadline) throw new Error(`the receiver got ${received} of ${count} webhooks`);
        await sleep(100);
      }
    },
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
