import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DescribeServicesCommand, DescribeTaskDefinitionCommand, ListServicesCommand, type Service } from '@aws-sdk/client-ecs';
import { constants as osConstants } from 'node:os';
import { EMULATED_ACCOUNT, EMULATED_REGION, type AwsClients } from './awsClients.js';
import { containerConfinement } from './containerSecurity.js';
import type { ImageRegistry } from './imageRegistry.js';

/** ECS's default wait between SIGTERM and SIGKILL when it stops a task. */
const STOP_TIMEOUT_MS = 30_000;

export interface EmulatedTask {
  id: string;
  service: string;
  taskDefinition: string;
  child: ChildProcess;
  protectedUntil: number;
  stopping: boolean;
  startedAt: number;
}

export interface EcsEmulatorOptions {
  clients: AwsClients;
  cluster: string;
  images: ImageRegistry;
  /** Endpoints and credentials for the tasks' AWS SDK. */
  awsEnvironment: Record<string, string>;
  /** Settings the emulation adds to every task (shorter timeouts for tests); documented where set. */
  extraEnvironment: Record<string, string>;
  logDir: string;
  onEvent: (message: string) => void;
  /** The detail of ECS's "ECS Task State Change" event for a task that stopped, as EventBridge carries it. */
  onTaskStopped: (detail: Record<string, unknown>) => void;
  /** Capacity providers with no instance to give (a vCPU quota of 0, no capacity in the zone): their tasks wait in PROVISIONING. */
  noCapacity?: (capacityProvider: string) => boolean;
  /** How long a task waits in PROVISIONING before ECS stops it. */
  provisioningTimeoutMs?: number;
}

/** What ECS's stopped-task event says of a task: a running one's, or one that never got an instance. */
type StoppedTask = Pick<EmulatedTask, 'id' | 'service' | 'taskDefinition' | 'stopping' | 'startedAt'>;

/** A task waiting in PROVISIONING for an instance its capacity provider cannot give. */
interface ProvisioningTask {
  id: string;
  service: string;
  taskDefinition: string;
  timer: NodeJS.Timeout;
}

/** What ECS says of a task stopped in PROVISIONING (its wording varies: taskStateChange.ts matches it loosely). */
export const NO_CAPACITY_REASON = 'Timeout waiting for capacity: the capacity provider could not launch an instance for the task';
/** ECS's wait in PROVISIONING (as documented for capacity providers' managed scaling). */
const PROVISIONING_TIMEOUT_MS = 30 * 60_000;

/**
 * ECS's service scheduler, emulated: every `reconcile` reads the cluster's services from moto
 * and starts or stops tasks until each service runs its desiredCount of its current task
 * definition. A task is a process of the image's command (`node /app/worker.mjs`) with the
 * task definition's environment, the image's environment (its venv on PATH) and the agent
 * endpoint ECS gives every task (ECS_AGENT_URI, here serving task scale-in protection), confined
 * as the container definition says (no-new-privileges, capabilities: containerSecurity.ts). Scale-in
 * stops unprotected tasks first and never a protected one; a stopped task gets SIGTERM, then
 * SIGKILL after 30 s. A task that exits is replaced at the next reconcile, after a pause that
 * doubles with each failure in a row (ECS's own throttle; its pauses grow to 15 minutes, here
 * to 30 s). Every stopped task is told as ECS's "ECS Task State Change" event.
 */
export class EcsEmulator {
  private readonly tasks = new Map<string, EmulatedTask>();
  private readonly provisioning = new Map<string, ProvisioningTask>();
  /** Service -> its capacity provider, from its CreateService call: moto's DescribeServices leaves the strategy out. */
  private readonly capacityProviders = new Map<string, string>();
  private agent: Server | undefined;
  private agentUrl = '';
  private counter = 0;
  private reconciling: Promise<void> | null = null;
  private again = false;
  /** Per service: failed tasks in a row, and when the next may start. */
  private readonly throttle = new Map<string, { failures: number; notBefore: number }>();

  constructor(private readonly options: EcsEmulatorOptions) {}

  async start(): Promise<void> {
    this.agent = createServer((request, response) => {
      const found = /^\/task\/([^/]+)\/task-protection\/v1\/state$/.exec(request.url ?? '');
      const task = found ? this.tasks.get(found[1] as string) : undefined;
      if (!task || request.method !== 'PUT') return void response.writeHead(404).end();
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const state = JSON.parse(body || '{}') as { ProtectionEnabled?: boolean; ExpiresInMinutes?: number };
        task.protectedUntil = state.ProtectionEnabled ? Date.now() + (state.ExpiresInMinutes ?? 120) * 60_000 : 0;
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ protection: { ProtectionEnabled: !!state.ProtectionEnabled } }));
      });
    });
    await new Promise<void>((resolve) => this.agent?.listen(0, '127.0.0.1', resolve));
    this.agentUrl = `http://127.0.0.1:${(this.agent.address() as AddressInfo).port}`;
  }

  /** The running tasks, for the specs (a task killed by hand, as an instance lost). */
  list(): EmulatedTask[] {
    return [...this.tasks.values()];
  }

  /** The capacity provider a CreateService asked for, which moto does not keep. */
  noteCapacityProvider(service: string, provider: string | undefined): void {
    if (provider) this.capacityProviders.set(service, provider);
  }

  /** Brings the tasks in line with the services; concurrent calls coalesce. */
  reconcile(): Promise<void> {
    if (this.reconciling) {
      this.again = true;
      return this.reconciling;
    }
    this.reconciling = (async () => {
      do {
        this.again = false;
        await this.reconcileOnce();
      } while (this.again);
    })().finally(() => {
      this.reconciling = null;
    });
    return this.reconciling;
  }

  async stop(): Promise<void> {
    for (const waiting of this.provisioning.values()) this.cancelProvisioning(waiting);
    await Promise.all([...this.tasks.values()].map((task) => this.stopTask(task, 5_000)));
    await new Promise<void>((resolve) => (this.agent ? this.agent.close(() => resolve()) : resolve()));
  }

  private async services(): Promise<Service[]> {
    const { ecs } = this.options.clients;
    const arns = (await ecs.send(new ListServicesCommand({ cluster: this.options.cluster, maxResults: 100 }))).serviceArns ?? [];
    const services: Service[] = [];
    for (let start = 0; start < arns.length; start += 10) {
      services.push(
        ...((await ecs.send(new DescribeServicesCommand({ cluster: this.options.cluster, services: arns.slice(start, start + 10) }))).services ?? []),
      );
    }
    return services.filter((service) => service.status === 'ACTIVE');
  }

  private async reconcileOnce(): Promise<void> {
    const services = await this.services();
    const names = new Set(services.map((service) => service.serviceName));
    for (const task of this.tasks.values()) if (!names.has(task.service)) void this.stopTask(task, STOP_TIMEOUT_MS);
    for (const waiting of this.provisioning.values()) if (!names.has(waiting.service)) this.cancelProvisioning(waiting);
    for (const service of services) {
      const name = service.serviceName as string;
      const current = [...this.tasks.values()].filter((task) => task.service === name && !task.stopping);
      // A new task definition (a redeploy) replaces the tasks of the old one.
      for (const task of current.filter((candidate) => candidate.taskDefinition !== service.taskDefinition)) void this.stopTask(task, STOP_TIMEOUT_MS);
      const live = current.filter((task) => task.taskDefinition === service.taskDefinition);
      const waiting = [...this.provisioning.values()].filter((task) => task.service === name);
      const desired = service.desiredCount ?? 0;
      const throttled = (this.throttle.get(name)?.notBefore ?? 0) > Date.now();
      const provider = service.capacityProviderStrategy?.[0]?.capacityProvider ?? this.capacityProviders.get(name) ?? '';
      for (let count = live.length + waiting.length; count < desired && !throttled; count++) {
        if (this.options.noCapacity?.(provider)) this.provision(name, service.taskDefinition as string, provider);
        else await this.startTask(name, service.taskDefinition as string);
      }
      // Fewer wanted: the tasks still waiting for an instance go first.
      for (const task of waiting.slice(0, Math.max(0, live.length + waiting.length - desired))) this.cancelProvisioning(task);
      const excess = live.length - desired;
      if (excess > 0) {
        const stoppable = live.filter((task) => task.protectedUntil < Date.now()).slice(0, excess);
        for (const task of stoppable) {
          this.options.onEvent(`(service ${name}) has stopped 1 running tasks: (task ${task.id}).`);
          void this.stopTask(task, STOP_TIMEOUT_MS);
        }
      }
    }
  }

  /** A task its capacity provider cannot place: it waits in PROVISIONING, then ECS stops it as unable to start. */
  private provision(service: string, taskDefinition: string, provider: string): void {
    const id = `task-${++this.counter}`;
    const startedAt = Date.now();
    this.options.onEvent(`(service ${service}) task ${id} is PROVISIONING: capacity provider ${provider} has no instance for it.`);
    const timer = setTimeout(() => {
      this.provisioning.delete(id);
      this.options.onEvent(`(service ${service}) task ${id} stopped: ${NO_CAPACITY_REASON}`);
      const task: StoppedTask = { id, service, taskDefinition, startedAt, stopping: false };
      this.options.onTaskStopped({
        ...taskStoppedDetail(task, this.options.cluster, null, null),
        stopCode: 'TaskFailedToStart',
        stoppedReason: NO_CAPACITY_REASON,
        containers: [{ name: 'worker', lastStatus: 'STOPPED' }],
      });
      this.throttleAfterExit(task, 1);
      void this.reconcile().catch(() => undefined);
    }, this.options.provisioningTimeoutMs ?? PROVISIONING_TIMEOUT_MS);
    timer.unref();
    this.provisioning.set(id, { id, service, taskDefinition, timer });
  }

  private cancelProvisioning(task: ProvisioningTask): void {
    clearTimeout(task.timer);
    this.provisioning.delete(task.id);
  }

  private async startTask(service: string, taskDefinitionArn: string): Promise<void> {
    const { taskDefinition } = await this.options.clients.ecs.send(new DescribeTaskDefinitionCommand({ taskDefinition: taskDefinitionArn }));
    const container = taskDefinition?.containerDefinitions?.[0];
    if (!container?.image) return;
    const id = `task-${++this.counter}`;
    const image = this.options.images.pull(container.image);
    if (!image) {
      this.options.onEvent(`(service ${service}) was unable to place a task: CannotPullContainerError: ${container.image} not found.`);
      return;
    }
    const log = createWriteStream(join(this.options.logDir, `${service}-${id}.log`), { flags: 'a' });
    const environment = Object.fromEntries((container.environment ?? []).map((entry) => [entry.name as string, entry.value as string]));
    // As Docker starts the container: its security options and capabilities applied.
    const [command = process.execPath, ...args] = [
      ...containerConfinement(container, process.getuid?.() === 0),
      process.execPath,
      join(image.appDir, 'worker.mjs'),
    ];
    const child = spawn(command, args, {
      cwd: image.codeDir,
      env: {
        PATH: `${image.venv}/bin:${process.env.PATH ?? ''}`,
        HOME: process.env.HOME ?? '/root',
        VIRTUAL_ENV: image.venv,
        PYTHONUNBUFFERED: '1',
        ...this.options.awsEnvironment,
        ...environment,
        ECS_AGENT_URI: `${this.agentUrl}/task/${id}`,
        // The image's filesystem is these folders, not /app.
        SLUICE_WORKER_CODE_DIR: image.codeDir,
        SLUICE_WORKER_SDK_DIR: join(image.appDir, 'sdk'),
        SLUICE_WORKER_PYTHON: `${image.venv}/bin/python`,
        ...this.options.extraEnvironment,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    const task: EmulatedTask = { id, service, taskDefinition: taskDefinitionArn, child, protectedUntil: 0, stopping: false, startedAt: Date.now() };
    this.tasks.set(id, task);
    this.options.onEvent(`(service ${service}) has started 1 tasks: (task ${id}).`);
    child.on('exit', (code, signal) => {
      this.tasks.delete(id);
      signalGroup(child, 'SIGKILL');
      this.options.onTaskStopped(taskStoppedDetail(task, this.options.cluster, code, signal));
      if (!task.stopping) {
        this.options.onEvent(`(service ${service}) task ${id} stopped: Essential container in task exited (${signal ?? `exit code ${code}`}).`);
        this.throttleAfterExit(task, code);
        void this.reconcile().catch(() => undefined);
      }
    });
  }

  private throttleAfterExit(task: Pick<EmulatedTask, 'service' | 'startedAt'>, code: number | null): void {
    const ranLong = Date.now() - task.startedAt > 60_000;
    const failures = code === 0 || ranLong ? 0 : (this.throttle.get(task.service)?.failures ?? 0) + 1;
    this.throttle.set(task.service, { failures, notBefore: failures === 0 ? 0 : Date.now() + Math.min(1000 * 2 ** (failures - 1), 30_000) });
  }

  /** ECS's stop: SIGTERM to the task's processes, SIGKILL after the stop timeout. */
  private stopTask(task: EmulatedTask, timeoutMs: number): Promise<void> {
    task.stopping = true;
    if (task.child.exitCode !== null || task.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const kill = setTimeout(() => signalGroup(task.child, 'SIGKILL'), timeoutMs);
      task.child.once('exit', () => {
        clearTimeout(kill);
        // The container's other processes (replicas) go with it.
        signalGroup(task.child, 'SIGKILL');
        resolve();
      });
      signalGroup(task.child, 'SIGTERM');
    });
  }
}

/** What ECS says of a stopped task: stopped on purpose (scale-in, a redeploy) or its container exited by itself. */
function taskStoppedDetail(task: StoppedTask, cluster: string, code: number | null, signal: NodeJS.Signals | null): Record<string, unknown> {
  const clusterArn = `arn:aws:ecs:${EMULATED_REGION}:${EMULATED_ACCOUNT}:cluster/${cluster}`;
  return {
    clusterArn,
    taskArn: `arn:aws:ecs:${EMULATED_REGION}:${EMULATED_ACCOUNT}:task/${cluster}/${task.id}`,
    taskDefinitionArn: task.taskDefinition,
    group: `service:${task.service}`,
    lastStatus: 'STOPPED',
    desiredStatus: 'STOPPED',
    stopCode: task.stopping ? 'ServiceSchedulerInitiated' : 'EssentialContainerExited',
    stoppedReason: task.stopping ? 'Scaling activity initiated by (deployment ecs-svc)' : 'Essential container in task exited',
    // A container killed by a signal has exit code 128 + the signal's number, as Docker reports it.
    containers: [{ name: 'worker', lastStatus: 'STOPPED', exitCode: code ?? 128 + (signal ? osConstants.signals[signal] : 0) }],
    startedAt: new Date(task.startedAt).toISOString(),
    stoppedAt: new Date().toISOString(),
  };
}

/** A task's processes share its process group, as a container's share its namespace. */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    // Gone already.
  }
}
