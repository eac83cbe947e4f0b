import { join } from 'node:path';
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
import { WorkerAgent } from '../runtime/workerAgent.js';
import type { Services } from '../services/services.js';
import { agentCallbacks } from './agentCallbacks.js';
import type { Logger } from './logger.js';

/** Variables of the service's own that a function's process must not see. */
const PRIVATE_VARIABLES = /^(SLUICE_|AWS_SECRET|AWS_SESSION)/;

export interface LocalComputeOptions {
  config: Config;
  store: Store;
  artifacts: Artifacts;
  queue: JobQueue;
  clock: Clock;
  services: Services;
  logger: Logger;
  /** The service's base URL, known once it listens. */
  publicUrl: () => string;
}

/** The worker agent of the local mode: replicas as child processes of this one. */
export async function createLocalCompute(options: LocalComputeOptions): Promise<WorkerAgent> {
  const { config, store, services, logger } = options;
  const gpus = (await detectGpus()).map((gpu) => ({ ...gpu, machineType: config.gpuMachineType ?? gpu.machineType }));
  const emulate = config.emulateGpus === 'true' || (config.emulateGpus === 'auto' && gpus.length === 0);
  logger.info({ gpus, emulate }, emulate ? 'GPU machine types are emulated (no GPU needed)' : 'GPUs found');
  const versionsDir = join(config.dataDir, 'versions');
  return new WorkerAgent({
    store,
    lifecycle: services.lifecycle,
    queue: options.queue,
    logs: store.logs,
    clock: options.clock,
    gpus: new GpuInventory(gpus, emulate),
    idleTimeoutMs: config.idleTimeoutMs,
    defaultMaxReplicas: config.defaultMaxReplicas,
    maxOutputBytes: config.maxOutputBytes,
    newReplicaId: () => newShortId(),
    replicaProcess: (version: VersionRecord, gpuIndex: number | null) => {
      const codeDir = join(versionsDir, version.id, 'code');
      const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !PRIVATE_VARIABLES.test(name)));
      return {
        python: join(versionsDir, version.id, 'venv', 'bin', 'python'),
        codeDir,
        env: {
          ...env,
          PYTHONPATH: [PYTHON_SDK_DIR, codeDir].join(':'),
          PYTHONUNBUFFERED: '1',
          PYTHONDONTWRITEBYTECODE: '1',
          SLUICE_ENTRY_FILE: version.entrypoint.file,
          SLUICE_ENTRY_SYMBOL: version.entrypoint.symbol,
          SLUICE_ENTRY_KIND: version.entrypoint.kind,
          // A CPU function sees no GPU; a GPU one sees only the GPU it was placed on.
          CUDA_VISIBLE_DEVICES: gpuIndex === null ? '' : String(gpuIndex),
        },
      };
    },
    ...agentCallbacks(services, options.artifacts, options.publicUrl),
    onError: (error, context) => logger.error({ err: error }, context),
  });
}
