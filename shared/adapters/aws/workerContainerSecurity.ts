import type { ContainerDefinition, KernelCapabilities } from '@aws-sdk/client-ecs';

/**
 * What the agent (root in the container) needs of root: to start replicas as the image's user
 * (SETUID, SETGID), to signal and clean up after them (KILL, FOWNER, CHOWN) and to read the file
 * outputs they wrote (DAC_OVERRIDE). Docker's other defaults (NET_RAW, MKNOD, SYS_CHROOT,
 * SETPCAP, SETFCAP, AUDIT_WRITE, NET_BIND_SERVICE) are dropped.
 */
export const WORKER_CAPABILITIES: KernelCapabilities = { drop: ['ALL'], add: ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'KILL', 'SETGID', 'SETUID'] };

/**
 * The worker container's privileges: no process in it gains privileges through a setuid or
 * file-capability binary (Docker's no-new-privileges, honoured on the EC2 launch type), and the
 * container keeps only the capabilities the agent uses. Replicas start with none (setpriv).
 */
export function workerContainerSecurity(): Pick<ContainerDefinition, 'dockerSecurityOptions'> & { capabilities: KernelCapabilities } {
  return { dockerSecurityOptions: ['no-new-privileges'], capabilities: WORKER_CAPABILITIES };
}
