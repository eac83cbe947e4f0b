import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateClusterCommand, CreateServiceCommand, RegisterTaskDefinitionCommand } from '@aws-sdk/client-ecs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsClients } from '../../emulator/awsClients.js';
import { EcsEmulator } from '../../emulator/ecs.js';
import { Faults } from '../../emulator/faults.js';
import { ImageRegistry } from '../../emulator/imageRegistry.js';
import { startMoto, type MotoServer } from '../../emulator/moto.js';
import { until } from '../e2e/support/testService.js';
import { processAlive } from '../support/processAlive.js';

/** A worker that starts a second process in its task, as a replica would, and notes both pids. */
const WORKER = `import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
const replica = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1000)'], { stdio: 'ignore' });
appendFileSync(process.env.PIDS, process.pid + ' ' + replica.pid + '\\n');
setInterval(() => undefined, 1000);
`;

/**
 * The soak's kill -9 of a worker task (emulator/faults.ts) on the emulated ECS, against moto's
 * ECS: the task's processes die, ECS reports its essential container exited, and the service
 * gets a new task. (That its job is then run again is tasksOnAws.test.ts's.)
 */
describe('a worker task killed by the soak', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-killed-task-'));
  const pids = join(dir, 'pids.txt');
  const stopped: Record<string, any>[] = [];
  const faults = new Faults();
  let moto: MotoServer;
  let ecs: EcsEmulator;

  beforeAll(async () => {
    moto = await startMoto();
    const clients = awsClients(moto.endpoint, 'http://127.0.0.1:9');
    const built = join(dir, 'built');
    mkdirSync(join(built, 'worker'), { recursive: true });
    mkdirSync(join(built, 'code'));
    writeFileSync(join(built, 'worker', 'worker.mjs'), WORKER);
    writeFileSync(join(built, 'venv'), join(dir, 'venv'));
    const images = new ImageRegistry(join(dir, 'images'));
    await images.push('worker:1', built);
    await clients.ecs.send(new CreateClusterCommand({ clusterName: 'spec' }));
    await clients.ecs.send(new RegisterTaskDefinitionCommand({ family: 'spec', containerDefinitions: [{ name: 'worker', image: 'worker:1', memory: 512 }] }));
    await clients.ecs.send(new CreateServiceCommand({ cluster: 'spec', serviceName: 'v-spec', taskDefinition: 'spec', desiredCount: 1 }));
    ecs = new EcsEmulator({
      clients,
      cluster: 'spec',
      images,
      awsEnvironment: {},
      extraEnvironment: { PIDS: pids },
      logDir: dir,
      onEvent: () => undefined,
      onTaskStopped: (detail) => stopped.push(detail),
    });
    await ecs.start();
    faults.attachEcs(ecs);
  }, 60_000);
  afterAll(async () => {
    await ecs?.stop();
    await moto?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kills a running worker task’s processes, which ECS reports as its essential container exiting, and the service starts another', async () => {
    expect(faults.killWorkerTask()).toBeNull();
    await ecs.reconcile();
    const [task] = ecs.list();
    await until(async () => existsSync(pids), 10_000, 50);
    const [worker, replica] = readFileSync(pids, 'utf8').trim().split(' ').map(Number) as [number, number];

    expect(faults.killWorkerTask()).toBe(task?.id);
    await until(async () => stopped.length === 1, 10_000, 50);
    expect(stopped[0]).toMatchObject({ stopCode: 'EssentialContainerExited', containers: [{ exitCode: 137 }] });
    await until(async () => !processAlive(worker) && !processAlive(replica), 5_000, 50);
    expect(faults.counts().workerTasksKilled).toBe(1);
    // ECS replaces it, after its pause for a task that failed.
    await until(
      async () => {
        await ecs.reconcile();
        return ecs.list().some((next) => next.id !== task?.id);
      },
      15_000,
      250,
    );
  }, 60_000);
});
