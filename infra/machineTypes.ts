import { MACHINE_TYPES, type MachineType } from '../shared/domain/machineTypes.js';

/** The EC2 capacity behind one machine type of the interface. */
export interface MachineCapacity {
  /** The EC2 instance type of the machine type's Auto Scaling group. */
  instanceType: string;
  /** GPUs per instance; 0 for the CPU machine type, whose group uses the plain ECS-optimized AMI. */
  gpusPerInstance: number;
  /** The instance's memory, which its tasks share (see shared/adapters/aws/workerContainerLimits.ts). */
  memoryGiB: number;
  /** The most instances the group may run (the capacity provider scales between 0 and this). */
  maxInstances: number;
  /** The root volume: images with CUDA and ML packages are large. */
  rootVolumeGiB: number;
  /** What a reader of the table should know. */
  note: string;
}

/**
 * Machine type -> EC2 capacity, as plain data: the compute stack creates one Auto Scaling group
 * and capacity provider per entry, the tests check the stack against it, and
 * docs/deploying-to-aws.md prints it. A GPU version's task reserves one GPU; its worker runs
 * `split` replicas that share it.
 */
export const MACHINE_CAPACITY: Record<MachineType, MachineCapacity> = {
  cpu: { instanceType: 'c6i.large', gpusPerInstance: 0, memoryGiB: 4, maxInstances: 10, rootVolumeGiB: 50, note: 'ECS-optimized Amazon Linux 2023 AMI' },
  t4: { instanceType: 'g4dn.xlarge', gpusPerInstance: 1, memoryGiB: 16, maxInstances: 4, rootVolumeGiB: 100, note: 'ECS GPU-optimized AMI' },
  l4: { instanceType: 'g6.xlarge', gpusPerInstance: 1, memoryGiB: 16, maxInstances: 4, rootVolumeGiB: 100, note: 'ECS GPU-optimized AMI' },
  a100: { instanceType: 'p4d.24xlarge', gpusPerInstance: 8, memoryGiB: 1152, maxInstances: 1, rootVolumeGiB: 200, note: '8 A100s (40 GB) per instance' },
  // MIG slices are not managed here: without MIG configured on the instances (a launch-template
  // change this stack does not make), a100-20gb tasks get whole A100s, like a100.
  'a100-20gb': {
    instanceType: 'p4d.24xlarge',
    gpusPerInstance: 8,
    memoryGiB: 1152,
    maxInstances: 1,
    rootVolumeGiB: 200,
    note: 'whole A100s unless MIG is configured',
  },
  v100: { instanceType: 'p3.2xlarge', gpusPerInstance: 1, memoryGiB: 61, maxInstances: 2, rootVolumeGiB: 100, note: 'ECS GPU-optimized AMI' },
};

export const isGpuCapacity = (machineType: MachineType): boolean => MACHINE_CAPACITY[machineType].gpusPerInstance > 0;

export { MACHINE_TYPES, type MachineType };
