import type { VersionRecord } from '../../shared/domain/version.js';
import type { workerSettings } from './workerSettings.js';

type WorkerSettings = ReturnType<typeof workerSettings>;

/**
 * What a replica keeps of the task's environment: where programs, locales and the GPU are.
 * Nothing else: not the task's AWS credentials (AWS_CONTAINER_CREDENTIALS_*, AWS_ACCESS_KEY_ID,
 * ...), not the ECS agent's endpoints (ECS_*), not the service's settings (SLUICE_*). The agent
 * keeps those; the replica talks to the agent only, over its protocol.
 */
const INHERITED = /^(PATH|LANG|LANGUAGE|LC_[A-Z]+|TZ|VIRTUAL_ENV|LD_LIBRARY_PATH|NVIDIA_[A-Z_]+|CUDA_[A-Z_]+)$/;

/** How the worker starts a replica of its version: a minimal environment, as the image's unprivileged user. */
export function workerReplicaProcess(settings: WorkerSettings, version: VersionRecord, env: NodeJS.ProcessEnv = process.env) {
  const inherited = Object.fromEntries(Object.entries(env).filter(([name]) => INHERITED.test(name)));
  return {
    python: settings.python,
    codeDir: settings.codeDir,
    // Another uid than the agent's: the replica cannot read the agent's /proc/<pid>/environ,
    // where the credentials are.
    uid: settings.replicaUid,
    gid: settings.replicaGid,
    env: {
      ...inherited,
      HOME: settings.replicaHome,
      PYTHONPATH: [settings.sdkDir, settings.codeDir].join(':'),
      PYTHONUNBUFFERED: '1',
      SLUICE_ENTRY_FILE: version.entrypoint.file,
      SLUICE_ENTRY_SYMBOL: version.entrypoint.symbol,
      SLUICE_ENTRY_KIND: version.entrypoint.kind,
    },
  };
}
