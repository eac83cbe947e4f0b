import type { MachineAvailability } from '../domain/machineAvailability.js';
import type { MachineType } from '../domain/machineTypes.js';
import { MACHINE_TYPES, MAX_SPLIT } from '../domain/machineTypes.js';

export interface Gpu {
  index: number;
  machineType: MachineType | 'other';
}

/** A GPU's capacity in units that every split from 1 to 8 divides: a replica of split s takes UNITS / s. */
const UNITS = 840;

/** Reads an nvidia-smi product name as a machine type. */
export function machineTypeOf(productName: string): Gpu['machineType'] {
  const name = productName.toLowerCase();
  if (name.includes('a100')) return /20gb|1g\.|2g\.|3g\./.test(name) ? 'a100-20gb' : 'a100';
  if (name.includes('t4')) return 't4';
  if (name.includes('l4')) return 'l4';
  if (name.includes('v100')) return 'v100';
  return 'other';
}

/** Parses `nvidia-smi --query-gpu=index,name --format=csv,noheader`. */
export function parseNvidiaSmi(output: string): Gpu[] {
  return output
    .split('\n')
    .map((line) => line.split(',').map((part) => part.trim()))
    .filter((parts) => parts.length >= 2 && /^\d+$/.test(parts[0] as string))
    .map(([index, name]) => ({ index: Number(index), machineType: machineTypeOf(name as string) }));
}

export type Placement = { kind: 'placed'; gpuIndex: number | null; release: () => void } | { kind: 'unavailable' };

/**
 * Which GPU a replica runs on. Up to `split` replicas of a version share one GPU. With no
 * GPUs and emulation on (the default on a machine without them), every machine type is
 * granted without a device, so a laptop runs everything.
 */
export class GpuInventory {
  private readonly used = new Map<number, number>();

  constructor(
    private readonly gpus: Gpu[],
    private readonly emulate: boolean,
  ) {}

  get emulating(): boolean {
    return this.emulate;
  }

  /** Every machine type: cpu always, a GPU type when a GPU of it was found, or all of them when emulating. */
  availability(): MachineAvailability[] {
    return MACHINE_TYPES.map((machineType) => {
      const base = { machineType, capacityProvider: null };
      if (machineType === 'cpu') return { ...base, available: true, gpus: null, emulated: false };
      if (this.emulate) return { ...base, available: true, gpus: null, emulated: true };
      const gpus = this.gpus.filter((gpu) => gpu.machineType === machineType).length;
      return { ...base, available: gpus > 0, gpus, emulated: false };
    });
  }

  place(machineType: MachineType, split: number): Placement {
    if (machineType === 'cpu' || this.emulate) return { kind: 'placed', gpuIndex: null, release: () => undefined };
    const units = UNITS / Math.min(Math.max(split, 1), MAX_SPLIT);
    for (const gpu of this.gpus) {
      if (gpu.machineType !== machineType) continue;
      const taken = this.used.get(gpu.index) ?? 0;
      if (taken + units > UNITS) continue;
      this.used.set(gpu.index, taken + units);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        this.used.set(gpu.index, (this.used.get(gpu.index) ?? units) - units);
      };
      return { kind: 'placed', gpuIndex: gpu.index, release };
    }
    return { kind: 'unavailable' };
  }
}
