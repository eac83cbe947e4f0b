/** Machine types as the interface names them, in the order the usage report lists them. */
export const MACHINE_TYPES = ['cpu', 't4', 'l4', 'a100', 'a100-20gb', 'v100'] as const;
export type MachineType = (typeof MACHINE_TYPES)[number];

/** The usage report also has `other`: functions billed with custom pricing. */
export const BILLING_CLASSES = [...MACHINE_TYPES, 'other'] as const;
export type BillingClass = (typeof BILLING_CLASSES)[number];

export const MAX_SPLIT = 8;

export function isGpuMachine(machineType: MachineType): boolean {
  return machineType !== 'cpu';
}
