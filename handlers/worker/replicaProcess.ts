import type { VersionRecord } from '../../shared/domain/version.js';
import { inheritedEnvironment } from '../../shared/runtime/inheritedEnvironment.js';
import type { ReplicaCommand } from '../../shared/runtime/replica.js';
import { runtimeCommand } from '../../shared/runtime/runtimeCommand.js';
import type { workerSettings } from './workerSettings.js';

type WorkerSettings = ReturnType<typeof workerSettings>;

/**
 * How the worker starts a replica of its version. The task is the function's container: no
 * bubblewrap inside it (ECS keeps tasks apart), but the replica keeps only the machine's setup
 * of the task's environment (inheritedEnvironment, and the image's VIRTUAL_ENV): not the task's
 * AWS credentials (AWS_CONTAINER_CREDENTIALS_*, AWS_ACCESS_KEY_ID, ...), not the ECS agent's
 * endpoints (ECS_*), not the service's settings (SLUICE_*). It runs as another user than the
 * agent, so it cannot read the agent's /proc/<pid>/environ either: it talks to the agent only,
 * over its protocol. setpriv (util-linux, in every Debian and Ubuntu image) starts it with no
 * new privileges, so a setuid file left in the image runs as the replica's user, not as root,
 * and with no capabilities to inherit.
 */
export function workerReplicaProcess(settings: WorkerSettings, version: VersionRecord, env: NodeJS.ProcessEnv = process.env): ReplicaCommand {
  const runtime = runtimeCommand({
    python: settings.python,
    sdkDir: settings.sdkDir,
    codeDir: settings.codeDir,
    version,
    env: { ...inheritedEnvironment(env, /^VIRTUAL_ENV$/), HOME: settings.replicaHome },
  });
  const user =
    settings.replicaUid === undefined ? [] : [`--reuid=${settings.replicaUid}`, `--regid=${settings.replicaGid ?? settings.replicaUid}`, '--clear-groups'];
  return { ...runtime, command: 'setpriv', args: ['--no-new-privs', '--inh-caps=-all', ...user, '--', runtime.command, ...runtime.args] };
}
