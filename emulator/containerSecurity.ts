import type { ContainerDefinition } from '@aws-sdk/client-ecs';

/** The capabilities Docker leaves a container's root when its definition names none. */
const DOCKER_DEFAULT_CAPABILITIES = [
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'NET_RAW',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
];

/** The container's capabilities as Docker computes them: its defaults, less `drop` (ALL: every one), plus `add`. */
export function containerCapabilities(container: Pick<ContainerDefinition, 'linuxParameters'>): string[] {
  const { drop = [], add = [] } = container.linuxParameters?.capabilities ?? {};
  const kept = drop.includes('ALL') ? [] : DOCKER_DEFAULT_CAPABILITIES.filter((capability) => !drop.includes(capability));
  return [...new Set([...kept, ...add])].sort();
}

/**
 * The setpriv prefix that starts a task's command as Docker starts its container: with
 * no_new_privs under `no-new-privileges`, and its capabilities as the bounding set (root's
 * privileges in it). Changing the bounding set needs root: run unprivileged, the emulation
 * applies no_new_privs only, and the task has no more than its user's own privileges anyway.
 */
export function containerConfinement(container: Pick<ContainerDefinition, 'linuxParameters' | 'dockerSecurityOptions'>, asRoot: boolean): string[] {
  const noNewPrivileges = (container.dockerSecurityOptions ?? []).includes('no-new-privileges');
  const bounding = asRoot
    ? [
        `--bounding-set=-all${containerCapabilities(container)
          .map((capability) => `,+${capability.toLowerCase()}`)
          .join('')}`,
      ]
    : [];
  const flags = [...(noNewPrivileges ? ['--no-new-privs'] : []), ...bounding];
  return flags.length === 0 ? [] : ['setpriv', ...flags, '--'];
}
