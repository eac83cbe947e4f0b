import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAwsLocal, type AwsLocalOptions } from '../../emulator/awsLocal.js';
import type { AwsClients } from '../../emulator/awsClients.js';
import type { EcsEmulator } from '../../emulator/ecs.js';
import type { Faults } from '../../emulator/faults.js';
import { expect } from 'vitest';
import { api, startTestService } from '../e2e/support/testService.js';

/** A running Sluice, as a client sees it: where to send requests, and the key of organization `local`. */
export interface Target {
  name: 'local' | 'aws';
  url: string;
  /** The base of the await route that waits longest (the function URL on AWS), ending in `/`. */
  awaitBase: string;
  key: string;
  close(): Promise<void>;
}

/** Short waits for the specs: webhook retries, receivers' timeouts. */
const WEBHOOK_SETTINGS = { SLUICE_WEBHOOK_RETRY_BASE_MS: '200', SLUICE_WEBHOOK_TIMEOUT_S: '1' };

/** `npm start`'s service, in this process, on a free port. */
export async function startLocalTarget(): Promise<Target> {
  // Unconfined: dies-once keeps its marker in /tmp across replicas, which a sandboxed replica's
  // private /tmp does not outlive (test/e2e/functionIsolation.test.ts attacks the sandbox).
  const service = await startTestService({ ...WEBHOOK_SETTINGS, SLUICE_SANDBOX: 'off' });
  return { name: 'local', url: service.url, awaitBase: `${service.url}/`, key: service.key, close: () => service.close() };
}

/** `npm run aws:local`'s deployment, with what the AWS-only specs look into: the emulated ECS, the emulated services' clients, the faults to inject and the data folder. */
export type AwsTarget = Target & { ecs: EcsEmulator; clients: AwsClients; faults: Faults; dataDir: string };

/** `npm run aws:local`'s deployment: the AWS composition on moto and dynalite, on a free port. */
export async function startAwsTarget(overrides: Partial<AwsLocalOptions> = {}): Promise<AwsTarget> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sluice-aws-'));
  const emulation = await startAwsLocal({
    port: 0,
    host: '127.0.0.1',
    dataDir,
    organization: 'local',
    prefix: 'sluice-',
    timeScale: 60,
    python: 'python3',
    pipArgs: [],
    lambdaEnvironment: { SLUICE_WEBHOOK_ALLOW: 'loopback', SLUICE_LOG_LEVEL: 'warn', ...WEBHOOK_SETTINGS },
    // A killed task's job comes back after 5 s instead of a minute.
    taskEnvironment: { SLUICE_QUEUE_VISIBILITY_S: '5', SLUICE_LOG_LEVEL: 'warn' },
    onEvent: () => undefined,
    ...overrides,
  });
  return {
    name: 'aws',
    url: emulation.url,
    awaitBase: emulation.awaitUrl,
    key: emulation.bootstrapKey.key,
    ecs: emulation.ecs,
    clients: emulation.clients,
    faults: emulation.faults,
    dataDir,
    async close() {
      await emulation.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * What the acceptance specs send: any request, a push to `local/<fn>` (answered 200, its id),
 * and an await through the route that waits longest. `target` is read at each call: it is made
 * in a beforeAll.
 */
export function targetClient(target: () => Target) {
  const call = (method: string, path: string, body?: unknown) => api(target().url, target().key, method, path, body);
  const push = async (fn: string, inputs: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const { status, body } = await call('POST', '/v2/push', { function: `local/${fn}`, inputs, ...extra });
    expect(status).toBe(200);
    return body.id as string;
  };
  const awaitJob = async (id: string) => (await api(target().awaitBase.replace(/\/$/, ''), target().key, 'GET', `/v2/jobs/${id}/await`)).body;
  return { call, push, awaitJob };
}
