import type { MachineType } from './machineTypes.js';

/** Whether this deployment can run a machine type, and on what (the compute availability route). */
export interface MachineAvailability {
  machineType: MachineType;
  available: boolean;
  /** GPUs of this type found on this machine (local mode); null where not counted (cpu, emulation, AWS). */
  gpus: number | null;
  /** Local mode without a GPU of this type: its replicas run without a device. */
  emulated: boolean;
  /** AWS: the capacity provider its tasks run on; null locally. */
  capacityProvider: string | null;
}
