import type { BillingClass } from './machineTypes.js';

/** Compute time to add to an organization's usage in one hour, on one version. */
export interface UsageIncrement {
  organizationId: string;
  functionId: string;
  versionId: string;
  billingClass: BillingClass;
  /** Start of the UTC hour, in seconds since the epoch. */
  hour: number;
  computeSeconds: number;
  costDollars: number;
}

export interface UsageTotals {
  computeSeconds: number;
  costDollars: number;
}

export const HOUR_SECONDS = 3600;

export const hourOf = (epochSeconds: number) => Math.floor(epochSeconds / HOUR_SECONDS) * HOUR_SECONDS;

/** The current billing period: the calendar month (UTC) around `nowSeconds`, as [start, end) in seconds. */
export function billingPeriod(nowSeconds: number): { start: number; end: number } {
  const now = new Date(nowSeconds * 1000);
  return {
    start: Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1) / 1000,
    end: Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) / 1000,
  };
}
