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

/** A version's replica pool as it asks for GPUs: woken when its turn comes. */
export interface GpuClaimant {
  /** Its turn came: it asks again (it scales). */
  wake(): void;
  /** It still wants a replica placed: one that no longer does gives up its turn. */
  waiting(): boolean;
}

/**
 * Which GPU a replica runs on. Up to `split` replicas of a version share one GPU. With no
 * GPUs and emulation on (the default on a machine without them), every machine type is
 * granted without a device, so a laptop runs everything.
 *
 * Versions waiting for GPUs of a type take turns: a claimant refused for want of room waits in
 * line; room that frees up wakes the first in line whose replica fits, and nobody behind it (nor
 * a version that did not wait) may take that room meanwhile. One placement is one turn: a
 * version that wants more goes to the back of the line.
 */
export class GpuInventory {
  private readonly used = new Map<number, number>();
  /** Per machine type, the claimants waiting in line (in order) and the units a replica of each needs. */
  private readonly lines = new Map<MachineType, Map<GpuClaimant, number>>();

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

  /** A GPU for one replica of a version of this split; `claimant`, when refused, waits in line for its turn. */
  place(machineType: MachineType, split: number, claimant?: GpuClaimant): Placement {
    if (machineType === 'cpu' || this.emulate) return { kind: 'placed', gpuIndex: null, release: () => undefined };
    const units = UNITS / Math.min(Math.max(split, 1), MAX_SPLIT);
    const gpu = this.roomFor(machineType, units);
    const ahead = this.nextInLine(machineType, claimant);
    if (gpu === undefined || ahead !== undefined) {
      const line = this.lines.get(machineType) ?? new Map<GpuClaimant, number>();
      this.lines.set(machineType, line);
      if (claimant && !line.has(claimant)) line.set(claimant, units);
      return { kind: 'unavailable' };
    }
    if (claimant) this.lines.get(machineType)?.delete(claimant);
    this.used.set(gpu.index, (this.used.get(gpu.index) ?? 0) + units);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.used.set(gpu.index, (this.used.get(gpu.index) ?? units) - units);
      this.wakeNext(machineType);
    };
    // Room may be left over for the next in line.
    this.wakeNext(machineType);
    return { kind: 'placed', gpuIndex: gpu.index, release };
  }

  private roomFor(machineType: MachineType, units: number): Gpu | undefined {
    return this.gpus.find((gpu) => gpu.machineType === machineType && (this.used.get(gpu.index) ?? 0) + units <= UNITS);
  }

  /**
   * The first claimant in line, other than `asking`, whose replica fits now; when `asking` waits
   * in line itself, only those ahead of it count. Claimants that no longer wait leave the line.
   */
  private nextInLine(machineType: MachineType, asking?: GpuClaimant): GpuClaimant | undefined {
    const line = this.lines.get(machineType);
    if (!line) return undefined;
    for (const [claimant, units] of line) {
      if (claimant === asking) return undefined;
      if (!claimant.waiting()) line.delete(claimant);
      else if (this.roomFor(machineType, units) !== undefined) return claimant;
    }
    return undefined;
  }

  private wakeNext(machineType: MachineType): void {
    const next = this.nextInLine(machineType);
    // Not now: the placing pool is inside its own scale loop.
    if (next) queueMicrotask(() => next.wake());
  }
}
