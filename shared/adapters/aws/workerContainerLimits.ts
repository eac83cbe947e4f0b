import type { ContainerDefinition } from '@aws-sdk/client-ecs';
import { isGpuMachine, type MachineType } from '../../domain/machineTypes.js';

/**
 * Each worker task's hard memory limit, in MiB: its share of its instance (infra/machineTypes.ts;
 * one task per GPU, one per CPU instance), about 90% of the instance's memory rounded down to
 * a whole GiB. The rest is the OS's, the ECS agent's and Docker's: an instance registers less
 * memory with ECS than its nominal size, and a task asking more than that is never placed.
 */
export const TASK_MEMORY_MIB: Record<MachineType, number> = {
  cpu: 3 * 1024, // c6i.large: 4 GiB
  t4: 14 * 1024, // g4dn.xlarge: 16 GiB, 1 GPU
  l4: 14 * 1024, // g6.xlarge: 16 GiB, 1 GPU
  a100: 128 * 1024, // p4d.24xlarge: 1,152 GiB, 8 GPUs
  'a100-20gb': 128 * 1024, // p4d.24xlarge, as a100 (whole GPUs unless MIG is configured)
  v100: 54 * 1024, // p3.2xlarge: 61 GiB, 1 GPU
};

/**
 * The worker container's limits for PyTorch: a hard memory limit (the kernel stops the task's
 * processes past it, and the worker records an OOM restart, instead of the instance swapping or
 * its agent dying); /dev/shm of half that memory, where DataLoader workers pass batches (Docker's
 * default is 64 MB; its pages count against the limit); and, on GPUs, unlimited locked memory
 * for CUDA's pinned host buffers and NCCL.
 */
export function workerContainerLimits(machineType: MachineType): Pick<ContainerDefinition, 'memory' | 'linuxParameters' | 'ulimits'> {
  const memory = TASK_MEMORY_MIB[machineType];
  return {
    memory,
    linuxParameters: { sharedMemorySize: memory / 2 },
    ulimits: isGpuMachine(machineType) ? [{ name: 'memlock', softLimit: -1, hardLimit: -1 }] : undefined,
  };
}
