import type { VersionRecord } from '../domain/version.js';
import type { Compute } from '../ports/compute.js';

/**
 * Why a version's jobs wait: its tasks found no capacity (AWS: no instance, a quota of 0), or
 * no machine of its type here and none emulated. Deploy, push and the version say it, so
 * nobody finds out from a job that never starts. Null when its machine type can run.
 */
export async function capacityWarning(compute: Compute, version: Pick<VersionRecord, 'computeType' | 'capacityShortage'>): Promise<string | null> {
  if (version.capacityShortage) return version.capacityShortage;
  const machineType = version.computeType;
  if (machineType === 'cpu') return null;
  const availability = (await compute.machineTypes()).find((candidate) => candidate.machineType === machineType);
  if (!availability || availability.available) return null;
  if (availability.gpus === null) return `No ${machineType} machines are configured for this deployment: its jobs wait in the queue until there are.`;
  return (
    `No ${machineType} GPU on this machine, and GPU emulation is off (SLUICE_EMULATE_GPUS): its jobs wait in the queue until one is found. ` +
    `Set SLUICE_EMULATE_GPUS=auto on a machine without GPUs to run them without a device, or SLUICE_GPU_MACHINE_TYPE to the type this machine's GPU serves.`
  );
}
