import { describe, expect, it } from 'vitest';
import type { Placement } from '../../shared/runtime/gpuInventory.js';
import { GpuInventory, machineTypeOf, parseNvidiaSmi } from '../../shared/runtime/gpuInventory.js';

describe('GPU placement', () => {
  it('reads nvidia-smi’s GPU list as machine types', () => {
    const output = '0, Tesla T4\n1, NVIDIA A100-SXM4-80GB\n2, NVIDIA L4\n3, Tesla V100-SXM2-16GB\n4, NVIDIA H100 80GB HBM3\n';
    expect(parseNvidiaSmi(output)).toEqual([
      { index: 0, machineType: 't4' },
      { index: 1, machineType: 'a100' },
      { index: 2, machineType: 'l4' },
      { index: 3, machineType: 'v100' },
      { index: 4, machineType: 'other' },
    ]);
    expect(machineTypeOf('NVIDIA A100 MIG 3g.20gb')).toBe('a100-20gb');
  });

  it('puts up to `split` replicas on one GPU, then the next GPU of that type, then none', () => {
    const inventory = new GpuInventory(
      [
        { index: 0, machineType: 't4' },
        { index: 1, machineType: 'l4' },
        { index: 2, machineType: 't4' },
      ],
      false,
    );
    const placed = Array.from({ length: 5 }, () => inventory.place('t4', 2));
    expect(placed.map((p) => (p.kind === 'placed' ? p.gpuIndex : 'none'))).toEqual([0, 0, 2, 2, 'none']);
    const first = placed[0];
    if (first?.kind === 'placed') first.release();
    expect(inventory.place('t4', 2)).toMatchObject({ kind: 'placed', gpuIndex: 0 });
  });

  it('leaves a version whose machine type this machine lacks unplaced (awaiting resources)', () => {
    expect(new GpuInventory([{ index: 0, machineType: 't4' }], false).place('a100', 1)).toEqual({ kind: 'unavailable' });
  });

  it('places any machine type without a device when emulating, and CPU functions always', () => {
    expect(new GpuInventory([], true).place('a100', 1)).toMatchObject({ kind: 'placed', gpuIndex: null });
    expect(new GpuInventory([], false).place('cpu', 1)).toMatchObject({ kind: 'placed', gpuIndex: null });
  });

  it('reports cpu and the GPU types found as available, counting the GPUs of each', () => {
    const available = new GpuInventory(
      [
        { index: 0, machineType: 't4' },
        { index: 1, machineType: 't4' },
        { index: 2, machineType: 'other' },
      ],
      false,
    ).availability();
    expect(available.filter((type) => type.available)).toEqual([
      { machineType: 'cpu', available: true, gpus: null, emulated: false, capacityProvider: null },
      { machineType: 't4', available: true, gpus: 2, emulated: false, capacityProvider: null },
    ]);
    expect(available.find((type) => type.machineType === 'a100')).toMatchObject({ available: false, gpus: 0 });
  });

  it('reports every GPU type as available, emulated, when emulating', () => {
    const available = new GpuInventory([], true).availability();
    expect(available.every((type) => type.available)).toBe(true);
    expect(available.filter((type) => type.emulated).map((type) => type.machineType)).toEqual(['t4', 'l4', 'a100', 'a100-20gb', 'v100']);
  });
});

describe('GPUs shared across versions', () => {
  /** A version's pool as the inventory sees it: it records its wake-ups, and waits while `waits` says so. */
  function claimant(name: string, woken: string[]) {
    const pool = { waits: true, wake: () => void woken.push(name), waiting: () => pool.waits };
    return pool;
  }
  const turn = () => new Promise<void>((resolve) => queueMicrotask(resolve));
  const release = (placement: Placement) => (placement.kind === 'placed' ? placement.release() : undefined);
  const t4s = (count: number) =>
    new GpuInventory(
      Array.from({ length: count }, (_, index) => ({ index, machineType: 't4' as const })),
      false,
    );

  it('wakes a version waiting for a GPU when another version’s replica frees one', async () => {
    const inventory = t4s(1);
    const woken: string[] = [];
    const holder = inventory.place('t4', 1);
    expect(inventory.place('t4', 1, claimant('b', woken))).toEqual({ kind: 'unavailable' });
    release(holder);
    await turn();
    expect(woken).toEqual(['b']);
  });

  it('keeps a freed GPU for the version that waited: one that asks without having waited is refused meanwhile', async () => {
    const inventory = t4s(1);
    const woken: string[] = [];
    const holder = inventory.place('t4', 1);
    const waiter = claimant('b', woken);
    inventory.place('t4', 1, waiter);
    release(holder);
    expect(inventory.place('t4', 1, claimant('c', woken))).toEqual({ kind: 'unavailable' });
    expect(inventory.place('t4', 1)).toEqual({ kind: 'unavailable' });
    expect(inventory.place('t4', 1, waiter)).toMatchObject({ kind: 'placed', gpuIndex: 0 });
  });

  it('makes waiting versions take turns, one replica each, instead of the first taking every freed GPU', async () => {
    const inventory = t4s(2);
    const woken: string[] = [];
    const holders = [inventory.place('t4', 1), inventory.place('t4', 1)];
    const [a, b] = [claimant('a', woken), claimant('b', woken)];
    inventory.place('t4', 1, a);
    inventory.place('t4', 1, b);
    release(holders[0] as Placement);
    expect(inventory.place('t4', 1, a)).toMatchObject({ kind: 'placed' });
    // a wants a second replica: it goes behind b.
    expect(inventory.place('t4', 1, a)).toEqual({ kind: 'unavailable' });
    release(holders[1] as Placement);
    await turn();
    expect(woken).toEqual(['a', 'b']);
    expect(inventory.place('t4', 1, a)).toEqual({ kind: 'unavailable' });
    expect(inventory.place('t4', 1, b)).toMatchObject({ kind: 'placed' });
  });

  it('passes over a waiting version whose replica does not fit the room freed, and one that no longer waits', async () => {
    const inventory = t4s(1);
    const woken: string[] = [];
    const halves = [inventory.place('t4', 2), inventory.place('t4', 2)];
    const whole = claimant('whole', woken);
    const gone = claimant('gone', woken);
    inventory.place('t4', 1, whole);
    inventory.place('t4', 2, gone);
    inventory.place('t4', 2, claimant('half', woken));
    gone.waits = false;
    release(halves[0] as Placement);
    await turn();
    expect(woken).toEqual(['half']);
  });
});
