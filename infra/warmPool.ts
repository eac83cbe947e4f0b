import { MACHINE_TYPES, type MachineType } from './machineTypes.js';

/**
 * Stopped instances each machine type's Auto Scaling group keeps ready (an EC2 Auto Scaling warm
 * pool), so a task that needs a new instance waits for an instance start rather than a launch
 * and first boot. Absent or 0: none, the default, as a stopped instance still costs its volume
 * (docs/deploying-to-aws.md, "Cold starts").
 */
export type WarmPoolSizes = Partial<Record<MachineType, number>>;

const WHOLE_NUMBER = /^\d+$/;

function count(value: string, source: string): number {
  if (!WHOLE_NUMBER.test(value)) throw new Error(`sluice:warmPool must be a whole number (or machine type counts such as "t4=1,l4=2"), not "${source}"`);
  return Number(value);
}

/**
 * The context value `sluice:warmPool`: a number, for every machine type (`1`), or `type=count`
 * pairs for the machine types named (`t4=1,l4=2`). A string on the command line, a number in cdk.json.
 */
export function parseWarmPool(value: unknown): WarmPoolSizes | undefined {
  if (value === undefined) return undefined;
  const text = String(value).trim();
  if (!text.includes('=')) {
    const size = count(text, text);
    return Object.fromEntries(MACHINE_TYPES.map((machineType) => [machineType, size]));
  }
  const sizes: WarmPoolSizes = {};
  for (const pair of text.split(',')) {
    const [name = '', size = ''] = pair.split('=').map((part) => part.trim());
    if (!(MACHINE_TYPES as readonly string[]).includes(name)) throw new Error(`sluice:warmPool: "${name}" is not a machine type (${MACHINE_TYPES.join(', ')})`);
    const machineType = name as MachineType;
    if (machineType in sizes) throw new Error(`sluice:warmPool names ${machineType} twice`);
    sizes[machineType] = count(size, text);
  }
  return sizes;
}
