import type { BillingClass, MachineType } from './machineTypes.js';

/**
 * Default prices in dollars per second of one whole machine, close to what public clouds ask
 * for an on-demand instance with one such GPU. Operators set their own (SLUICE_PRICE_<TYPE>).
 */
export const DEFAULT_PRICES: Record<BillingClass, number> = {
  cpu: 0.000014, // ~$0.05 an hour
  t4: 0.000164, // ~$0.59 an hour
  l4: 0.000222, // ~$0.80 an hour
  a100: 0.000833, // ~$3.00 an hour
  'a100-20gb': 0.000417, // ~$1.50 an hour (a 20 GB slice of an A100)
  v100: 0.000694, // ~$2.50 an hour
  other: 0, // functions with a custom price carry their own (SLUICE_CUSTOM_PRICES)
};

export interface Pricing {
  prices: Record<BillingClass, number>;
  /** Per-second prices of functions billed as `other`, by "owner/name". */
  customPrices: Map<string, number>;
}

export interface Charge {
  billingClass: BillingClass;
  pricePerSecond: number;
  computeSeconds: number;
  costDollars: number;
}

/**
 * What a stretch of compute costs: seconds times the machine's price per second, divided by
 * split (a replica of split s uses 1/s of the GPU). A function with a custom price is billed
 * as `other` at that price.
 */
export function charge(pricing: Pricing, fn: string, machineType: MachineType, split: number, computeSeconds: number): Charge {
  const custom = pricing.customPrices.get(fn);
  const billingClass: BillingClass = custom === undefined ? machineType : 'other';
  const pricePerSecond = custom ?? pricing.prices[machineType];
  return { billingClass, pricePerSecond, computeSeconds, costDollars: (computeSeconds * pricePerSecond) / Math.max(split, 1) };
}
