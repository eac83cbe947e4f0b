import { describe, expect, it } from 'vitest';
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
});
