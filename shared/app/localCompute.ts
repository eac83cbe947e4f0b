import { mkdirSync, readdirSync, realpathSync, symlinkSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createHttpFileFetcher, INPUT_IDLE_TIMEOUT_MS } from '../adapters/httpFileFetcher.js';
import { pythonInstallation } from '../adapters/local/build/pythonInterpreters.js';
import { openConfinedFile } from '../system/confinedFile.js';
import { gpuDevices } from '../adapters/local/sandbox/gpuDevices.js';
import type { Sandbox, SandboxSpec } from '../adapters/local/sandbox/sandbox.js';
import type { Config } from '../config.js';
import { newShortId } from '../domain/ids.js';
import type { VersionRecord } from '../domain/version.js';
import type { Artifacts } from '../ports/artifacts.js';
import type { Clock } from '../ports/clock.js';
import type { JobQueue } from '../ports/jobQueue.js';
import type { Store } from '../ports/store.js';
import { PYTHON_SDK_DIR } from '../packaging/inspectFunctions.js';
import { detectGpus } from '../runtime/gpuDetection.js';
import { GpuInventory } from '../runtime/gpuInventory.js';
import { inheritedEnvironment } from '../runtime/inheritedEnvironment.js';
import type { ReplicaProcess } from '../runtime/replicaPool.js';
import { runtimeCommand } from '../runtime/runtimeCommand.js';
import { WorkerAgent } from '../runtime/workerAgent.js';
import type { WorkerServices } from '../services/services.js';
import { agentCallbacks } from './agentCallbacks.js';
import type { Logger } from './logger.js';
import type { Telemetry } from '../ports/telemetry.js';
import type { OpenLogLines } from '../ports/logLines.js';

const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export interface LocalComputeOptions {
  config: Config;
  store: Store;
  artifacts: Artifacts;
  queue: JobQueue;
  clock: Clock;
  /** Where replicas' setup and jobs' lines go (the service's one log writer factory). */
  openLog: OpenLogLines;
  logger: Logger;
  /** Confines each replica to its code, its environment and its scratch folder. */
  sandbox: Sandbox;
  /** The service's base URL, known once it listens. */
  publicUrl: () => string;
  telemetry: Telemetry;
}

/**
 * The worker agent of the local mode: replicas as child processes of this one, each in its
 * sandbox. Prepared first (GPUs found, folders made); built from the services it reports to.
 */
export async function prepareLocalCompute(options: LocalComputeOptions): Promise<(services: WorkerServices) => WorkerAgent> {
  const { config, store, logger, sandbox } = options;
  const gpus = (await detectGpus()).map((gpu) => ({ ...gpu, machineType: config.gpuMachineType ?? gpu.machineType }));
  const emulate = config.emulateGpus === 'true' || (config.emulateGpus === 'auto' && gpus.length === 0);
  logger.info({ gpus, emulate }, emulate ? 'GPU machine types are emulated (no GPU needed)' : 'GPUs found');
  const versionsDir = join(config.dataDir, 'versions');
  const scratchDir = join(config.dataDir, 'scratch', 'replicas');
  await mkdir(scratchDir, { recursive: true });
  // Inputs a stopped service left behind belong to no running job.
  const inputsDir = join(config.dataDir, 'inputs');
  await rm(inputsDir, { recursive: true, force: true });
  return (services) =>
    new WorkerAgent({
      store,
      lifecycle: services.lifecycle,
      queue: options.queue,
      openLog: options.openLog,
      clock: options.clock,
      gpus: new GpuInventory(gpus, emulate),
      idleTimeoutMs: config.idleTimeoutMs,
      defaultMaxReplicas: config.defaultMaxReplicas,
      maxOutputBytes: config.maxOutputBytes,
      // The files a job passes to another function are kept as uploads: within the upload limit.
      maxCallFileBytes: config.maxUploadBytes,
      newReplicaId: () => newShortId(),
      replicaProcess: (version: VersionRecord, gpuIndex: number | null, replicaId: string): ReplicaProcess => {
        const codeDir = join(versionsDir, version.id, 'code');
        const environment = realpathSync(join(versionsDir, version.id, 'venv'));
        const python = join(environment, 'bin', 'python');
        const scratch = join(scratchDir, replicaId);
        mkdirSync(scratch, { mode: 0o700 });
        // Functions write their results next to their code (`cv2.imwrite("out.jpg")`, as Sieve's
        // examples do): they start in a folder of their own, the code's files linked in read-only.
        const work = join(scratch, 'work');
        mkdirSync(work);
        for (const entry of readdirSync(codeDir)) symlinkSync(join(codeDir, entry), join(work, entry));
        // The agent fetches each job's File inputs here; the replica reads them.
        const inputs = join(inputsDir, replicaId);
        mkdirSync(inputs, { recursive: true });
        const spec: SandboxSpec = {
          readOnly: [codeDir, environment, PYTHON_SDK_DIR, inputs, ...[pythonInstallation(python)].filter((path) => path !== null)],
          writable: [work],
          scratch,
          devices: gpuIndex === null ? [] : gpuDevices(),
          cwd: work,
        };
        const runtime = runtimeCommand({ python, sdkDir: PYTHON_SDK_DIR, codeDir, version, env: {} });
        const confined = sandbox.wrap(runtime.command, runtime.args, spec);
        const inherited = inheritedEnvironment(process.env);
        return {
          command: confined.command,
          args: confined.args,
          cwd: confined.cwd,
          env: {
            ...inherited,
            ...runtime.env,
            PATH: `${join(environment, 'bin')}:${inherited.PATH ?? DEFAULT_PATH}`,
            HOME: confined.scratch,
            TMPDIR: confined.scratch,
            // A CPU function sees no GPU; a GPU one sees only the GPU it was placed on.
            CUDA_VISIBLE_DEVICES: gpuIndex === null ? '' : String(gpuIndex),
          },
          // Unconfined, a replica reads what the service reads: there is nothing to hold back.
          openOutput: sandbox.kind === 'none' ? undefined : (path) => openConfinedFile(sandbox.hostPath(path, spec), [scratch, codeDir, inputs]),
          dispose: () => rm(scratch, { recursive: true, force: true }),
        };
      },
      inputsDir,
      ...agentCallbacks(
        services,
        options.artifacts,
        options.publicUrl,
        createHttpFileFetcher({ allowed: config.inputAllow, idleTimeoutMs: INPUT_IDLE_TIMEOUT_MS, maxBytes: config.maxInputBytes }),
      ),
      onError: (error, context) => logger.error({ err: error }, context),
      telemetry: options.telemetry,
    });
}
