import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startAwsLocal } from '../emulator/awsLocal.js';
import type { FaultyService } from '../emulator/faults.js';
import { createDocumentClient, createDynamoDbStore } from '../shared/adapters/aws/dynamodb/dynamoDbStore.js';
import { createSystemClock } from '../shared/adapters/systemClock.js';
import { KeyService } from '../shared/services/keyService.js';
import { ClockJump } from './clockJump.js';
import { sleep } from './http.js';
import type { Random } from './random.js';
import { OPERATOR_TOKEN, ORGANIZATION_NAMES, type SoakSystem } from './soakSystem.js';

export interface AwsSystemOptions {
  workDir: string;
  random: Random;
}

/** Receivers' bad spells last seconds: retries a fifth as far apart as by default reach them within the soak. */
const WEBHOOK_SETTINGS = { SLUICE_WEBHOOK_RETRY_BASE_MS: '200', SLUICE_WEBHOOK_TIMEOUT_S: '2', SLUICE_WEBHOOK_ALLOW: 'loopback' };

/**
 * `npm run aws:local`'s deployment in this process (moto_server, dynalite, the Lambdas as
 * processes, the emulated ECS running the real worker tasks), with the emulation's fault seams
 * (emulator/faults.ts): AWS calls throttled or failing for a while, Lambdas killed after their
 * writes and before their answers, worker tasks killed; and the wall clock of the Lambdas and
 * tasks jumping forward.
 */
export async function startAwsSystem({ workDir, random }: AwsSystemOptions): Promise<SoakSystem> {
  const dataDir = join(workDir, 'aws');
  mkdirSync(dataDir, { recursive: true });
  const clock = new ClockJump(join(workDir, 'clock-offset'));
  const emulation = await startAwsLocal({
    port: 0,
    host: '127.0.0.1',
    dataDir,
    organization: ORGANIZATION_NAMES[0]!,
    prefix: 'sluice-',
    timeScale: 60,
    python: 'python3',
    pipArgs: [],
    lambdaEnvironment: { SLUICE_LOG_LEVEL: 'warn', SLUICE_OPERATOR_TOKEN: OPERATOR_TOKEN, ...WEBHOOK_SETTINGS, ...clock.environment() },
    // A killed task's job comes back after 5 s instead of a minute.
    taskEnvironment: { SLUICE_QUEUE_VISIBILITY_S: '5', SLUICE_LOG_LEVEL: 'warn', ...WEBHOOK_SETTINGS, ...clock.environment() },
    onEvent: () => undefined,
  });
  const store = createDynamoDbStore({ tablePrefix: 'sluice-', client: createDocumentClient(emulation.clients.dynamoDb) });
  const keys = new KeyService(store, createSystemClock());
  const organizations = [{ name: ORGANIZATION_NAMES[0]!, key: emulation.bootstrapKey.key }];
  // Other organizations, made as the operator makes them (`sluice keys create` on the tables).
  for (const name of ORGANIZATION_NAMES.slice(1)) organizations.push({ name, key: (await keys.createKey(name)).secret });

  const { faults } = emulation;
  const window = (service: FaultyService, kind: 'throttle' | 'fail') => async () => {
    const forMs = random.between(2_000, 12_000);
    const share = random.between(0.2, 0.8);
    faults[kind](service, forMs, share);
    await sleep(forMs);
    return { detail: `${kind === 'throttle' ? 'throttled' : 'failed'} ${Math.round(share * 100)}% of ${service} calls for ${(forMs / 1000).toFixed(1)} s` };
  };
  const injectable: SoakSystem['faults'] = {
    'worker-task-kill': async () => {
      const killed = faults.killWorkerTask();
      return { detail: killed ? `kill -9 of worker task ${killed}` : 'no worker task running' };
    },
    'lambda-kill-after-write': async () => {
      const count = random.int(1, 3);
      faults.killLambdaAfterWrite(count);
      return { detail: `the next ${count} API Lambda invocations killed after their handler, before their answer` };
    },
    'dynamodb-throttle': window('dynamodb', 'throttle'),
    'dynamodb-fail': window('dynamodb', 'fail'),
    'sqs-throttle': window('sqs', 'throttle'),
    'sqs-fail': window('sqs', 'fail'),
    's3-throttle': window('s3', 'throttle'),
    // Steps of seconds, as AWS's time sync corrects them: retries waited for in Step Functions
    // are due at timestamps the Lambdas compute, so a skew of minutes delays them by as much.
    'clock-jump': async () => ({ detail: `wall clock of the Lambdas and tasks now ${clock.jump(random.between(1, 10))} s ahead` }),
  };
  const unavailableFaults: Record<string, string> = { 'disk-full': 'AWS storage does not fill: DynamoDB and S3 have no disk to fill' };
  const clockWhy = clock.unavailable();
  if (clockWhy) {
    unavailableFaults['clock-jump'] = clockWhy;
    delete injectable['clock-jump'];
  }
  return {
    mode: 'aws',
    url: emulation.url,
    awaitBase: emulation.awaitUrl.replace(/\/$/, ''),
    organizations,
    faults: injectable,
    unavailableFaults,
    close: () => emulation.close(),
  };
}
