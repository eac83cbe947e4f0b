import { z } from 'zod';
import { parseSettings } from '../../shared/config.js';

/** Where things are inside a version's image (the CodeBuild buildspec puts them there). */
const schema = z.object({
  SLUICE_VERSION_ID: z.string().min(1),
  SLUICE_WORKER_PYTHON: z.string().default('python3'),
  SLUICE_WORKER_CODE_DIR: z.string().default('/app/code'),
  SLUICE_WORKER_SDK_DIR: z.string().default('/app/sdk'),
  SLUICE_PUBLIC_URL: z.string().default(''),
  SLUICE_WORKER_POLL_MS: z.coerce.number().int().positive().default(1000),
  // The image's unprivileged user for replicas (infra/buildspec.ts creates it); unset: the agent's own.
  SLUICE_REPLICA_UID: z.coerce.number().int().min(1).optional(),
  SLUICE_REPLICA_GID: z.coerce.number().int().min(1).optional(),
  SLUICE_REPLICA_HOME: z.string().default('/tmp'),
});

export function workerSettings(env: NodeJS.ProcessEnv = process.env) {
  const values = parseSettings(schema, env, 'Invalid worker configuration');
  return {
    versionId: values.SLUICE_VERSION_ID,
    python: values.SLUICE_WORKER_PYTHON,
    codeDir: values.SLUICE_WORKER_CODE_DIR,
    sdkDir: values.SLUICE_WORKER_SDK_DIR,
    publicUrl: values.SLUICE_PUBLIC_URL.replace(/\/+$/, ''),
    pollMs: values.SLUICE_WORKER_POLL_MS,
    replicaUid: values.SLUICE_REPLICA_UID,
    replicaGid: values.SLUICE_REPLICA_GID,
    replicaHome: values.SLUICE_REPLICA_HOME,
  };
}
