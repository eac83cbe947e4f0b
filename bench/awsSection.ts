// `npm run bench`'s aws section: the cost model of the AWS mode, from calls counted on
// `npm run aws:local`, priced with bench/awsPrices.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Usage } from '../emulator/usageMeter.js';
import { synthesize } from '../emulator/cloudAssembly.js';
import { BILLED_SERVICES, totalCost, usageCost } from './awsCost.js';
import { AWS_PRICES, PRICES_TAKEN } from './awsPrices.js';
import { measureAwsWorkload } from './awsWorkload.js';
import { deployFunction, pushToFirstOutput, pythonFunction } from './benchFunctions.js';
import { createJsonClient } from './httpClient.js';
import { idleMonthlyCost, type IdleLine } from './idleCost.js';
import { startServiceProcess } from './serviceProcess.js';

const JOBS = Number(process.env.BENCH_AWS_JOBS ?? 30);
const IDLE_S = Number(process.env.BENCH_AWS_IDLE_S ?? 10);

const round = (value: number) => (Math.abs(value) >= 100 ? value.toFixed(0) : Math.abs(value) >= 1 ? value.toFixed(2) : value.toFixed(3));
const dollars = (value: number) => `$${Math.abs(value) >= 1 ? value.toFixed(2) : Math.abs(value) >= 0.01 ? value.toFixed(4) : value.toPrecision(2)}`;

/** Requests of a usage by billed service, with its operations: what the emulation counted. */
function requestLines(usage: Usage): [string, number, string][] {
  const byService = new Map<string, Map<string, number>>();
  const add = (service: string, operation: string, count: number) => {
    if (Math.abs(count) < 0.005) return;
    const operations = byService.get(service) ?? new Map<string, number>();
    operations.set(operation, (operations.get(operation) ?? 0) + count);
    byService.set(service, operations);
  };
  for (const [key, count] of Object.entries(usage.requests)) add(key.slice(0, key.indexOf(' ')), key.slice(key.indexOf(' ') + 1), count);
  add('apigateway', 'request', usage.apiRequests);
  for (const [name, fn] of Object.entries(usage.lambda)) add('lambda', name.replace(/^sluice-/, ''), fn.invocations);
  add('states', 'transition', usage.stateTransitions);
  return [...byService].map(([service, operations]) => [
    service,
    [...operations.values()].reduce((sum, count) => sum + count, 0),
    [...operations].map(([operation, count]) => `${operation} ${round(count)}`).join(', '),
  ]);
}

function costLines(title: string, usage: Usage, write: (line: string) => void): void {
  const cost = usageCost(usage);
  const perMillion = (value: number) => dollars(value * 1e6);
  write(`${title}: ${perMillion(totalCost(cost))}`);
  for (const service of BILLED_SERVICES) write(`  ${service.padEnd(18)} ${perMillion(cost[service])}`);
}

const idleTotal = (lines: IdleLine[]) => lines.reduce((sum, line) => sum + line.monthly, 0);

/** Measures and prints the section. */
export async function benchAwsSection(write: (line: string) => void): Promise<void> {
  write(`\nAWS cost model (npm run aws:local, counted calls; us-east-1 on-demand prices of ${PRICES_TAKEN}, bench/awsPrices.ts)`);
  write(`Run at ${new Date().toISOString()}; ${JOBS} jobs a phase (BENCH_AWS_JOBS), idle windows of ${IDLE_S} s (BENCH_AWS_IDLE_S)\n`);
  const figures = await measureAwsWorkload(JOBS, IDLE_S, write);
  const { perNoopJob, perJobsPage, perFunctionJobsPage, perWebhook, perSweep } = figures;

  write('\nRequests per no-op job (push, then await through the HTTP API), by service:');
  for (const [service, count, detail] of requestLines(perNoopJob)) write(`  ${service.padEnd(24)} ${round(count).padStart(7)}  (${detail})`);
  const units = (label: string, { dynamoDb }: Usage) => {
    const split = `(${round(dynamoDb.writeUnits - dynamoDb.indexWriteUnits)} table + ${round(dynamoDb.indexWriteUnits)} indexes)`;
    write(`${label.padEnd(44)} ${round(dynamoDb.writeUnits).padStart(7)} WCU ${split.padEnd(30)} ${round(dynamoDb.readUnits).padStart(7)} RCU`);
  };
  write('');
  units('DynamoDB per no-op job', perNoopJob);
  units('DynamoDB per page of GET /v2/jobs?limit=10', perJobsPage);
  units('DynamoDB per page of a function’s jobs (10)', perFunctionJobsPage);
  units('DynamoDB per webhook delivery', perWebhook);
  write('(Index WCU are computed from each write’s item images by DynamoDB’s rules for global secondary indexes; table WCU are dynalite’s.)\n');
  costLines('Cost per million no-op jobs', perNoopJob, write);
  costLines('Cost per million webhook deliveries (job.complete, beyond the job)', perWebhook, write);
  write(
    `Lambda duration is the emulation’s, on this machine: ${round(Object.values(perNoopJob.lambda).reduce((s, fn) => s + fn.gbSeconds, 0) * 1000)} GB-ms a no-op job.`,
  );

  const sweepCost = totalCost(usageCost(perSweep));
  const workDir = await mkdtemp(join(tmpdir(), 'sluice-bench-synth-'));
  try {
    for (const [label, natGateways] of [
      ['default deployment', undefined],
      ['natGateways=0', 0],
    ] as const) {
      const { stacks } = synthesize(join(workDir, label.replace(/\W/g, '')), 'sluice-', { natGateways });
      const lines = idleMonthlyCost(stacks, sweepCost);
      write(`\nIdle month, ${label} (cdk synth): ${dollars(idleTotal(lines))}`);
      for (const line of lines) write(`  ${line.item.padEnd(40)} ${String(Math.round(line.count)).padStart(6)}  ${dollars(line.monthly)}`);
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  write(
    `  (a sweep: ${dollars(sweepCost)}; each deployed version adds ${figures.alarmsPerVersion} scaling alarms, ${dollars(figures.alarmsPerVersion * 2 * AWS_PRICES.alarmMonth.usd)} a month at two SQS metrics each)`,
  );

  const local = await localFirstOutput();
  const { idleFirstOutput: aws } = figures;
  write('\nPush to first output, no replica running:');
  write(
    `  aws:local, version at zero tasks: ${round(aws.awsSeconds)} AWS s (${round(aws.wallMs / 1000)} s wall, ${round(aws.scaledMs / 1000)} s of it before the ${aws.startedBy === 'alarm' ? 'alarm scaled the service' : 'scaling'} at time scale ${figures.timeScale}; the task started by: ${aws.startedBy})`,
  );
  write(`  local mode (npm start), no warm replica: ${round(local / 1000)} s`);
}

/** `npm start`'s push to first output on a function with no replica running. */
async function localFirstOutput(): Promise<number> {
  const service = await startServiceProcess();
  try {
    const call = createJsonClient(service.url, service.key, 4);
    await deployFunction({ url: service.url, key: service.key, call }, service.dataDir, 'first-output', pythonFunction('first-output', 0, 1, '"ok"'));
    return (await pushToFirstOutput(call, 'first-output')).ms;
  } finally {
    await service.stop();
  }
}
