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

/**
 * Money and time as answers print them: sums of per-second prices carry binary float noise
 * (0.30000000000000004). Seconds are rounded to the microsecond (the timestamps' unit, so
 * nothing real is lost), dollars to the billionth: a millisecond of the cheapest machine costs
 * about 1.4e-8 dollars, which a millionth would round away.
 */
export const roundDollars = (dollars: number) => Math.round(dollars * 1e9) / 1e9;
export const roundSeconds = (seconds: number) => Math.round(seconds * 1e6) / 1e6;

export const hourOf = (epochSeconds: number) => Math.floor(epochSeconds / HOUR_SECONDS) * HOUR_SECONDS;

/** The current billing period: the calendar month (UTC) around `nowSeconds`, as [start, end) in seconds. */
export function billingPeriod(nowSeconds: number): { start: number; end: number } {
  const now = new Date(nowSeconds * 1000);
  return {
    start: Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1) / 1000,
    end: Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) / 1000,
  };
}
