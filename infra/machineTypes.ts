import { MACHINE_TYPES, type MachineType } from '../shared/domain/machineTypes.js';

/**
 * An instance's gp3 root volume. An image pull writes every layer onto it, which gp3's free
 * baseline (125 MiB/s, 3,000 IOPS) slows for multi-GB images; throughput above it is priced per
 * MiB/s and IOPS per IOPS (docs/deploying-to-aws.md, "Cold starts"), so each is raised no higher
 * than the instance's own EBS bandwidth can carry.
 */
export interface RootVolume {
  /** Images with CUDA and ML packages are large. */
  sizeGiB: number;
  throughputMiBps: number;
  iops: number;
}

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
  /** The root volume (gp3), where Docker keeps the images its tasks pull. */
  rootVolume: RootVolume;
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
  // CPU images are slim Python images: a small raise.
  cpu: {
    instanceType: 'c6i.large',
    gpusPerInstance: 0,
    memoryGiB: 4,
    maxInstances: 10,
    rootVolume: { sizeGiB: 50, throughputMiBps: 250, iops: 3000 },
    note: 'ECS-optimized Amazon Linux 2023 AMI',
  },
  // g4dn.xlarge reaches EBS at up to 3.5 Gbps (about 417 MiB/s).
  t4: {
    instanceType: 'g4dn.xlarge',
    gpusPerInstance: 1,
    memoryGiB: 16,
    maxInstances: 4,
    rootVolume: { sizeGiB: 100, throughputMiBps: 400, iops: 6000 },
    note: 'ECS GPU-optimized AMI',
  },
  l4: {
    instanceType: 'g6.xlarge',
    gpusPerInstance: 1,
    memoryGiB: 16,
    maxInstances: 4,
    rootVolume: { sizeGiB: 100, throughputMiBps: 500, iops: 6000 },
    note: 'ECS GPU-optimized AMI',
  },
  // Up to eight tasks (one per GPU) may pull at once.
  a100: {
    instanceType: 'p4d.24xlarge',
    gpusPerInstance: 8,
    memoryGiB: 1152,
    maxInstances: 1,
    rootVolume: { sizeGiB: 200, throughputMiBps: 1000, iops: 6000 },
    note: '8 A100s (40 GB) per instance',
  },
  // MIG slices are not managed here: without MIG configured on the instances (a launch-template
  // change this stack does not make), a100-20gb tasks get whole A100s, like a100.
  'a100-20gb': {
    instanceType: 'p4d.24xlarge',
    gpusPerInstance: 8,
    memoryGiB: 1152,
    maxInstances: 1,
    rootVolume: { sizeGiB: 200, throughputMiBps: 1000, iops: 6000 },
    note: 'whole A100s unless MIG is configured',
  },
  // p3.2xlarge reaches EBS at 1.75 Gbps (about 208 MiB/s).
  v100: {
    instanceType: 'p3.2xlarge',
    gpusPerInstance: 1,
    memoryGiB: 61,
    maxInstances: 2,
    rootVolume: { sizeGiB: 100, throughputMiBps: 200, iops: 6000 },
    note: 'ECS GPU-optimized AMI',
  },
};

export const isGpuCapacity = (machineType: MachineType): boolean => MACHINE_CAPACITY[machineType].gpusPerInstance > 0;

export { MACHINE_TYPES, type MachineType };
