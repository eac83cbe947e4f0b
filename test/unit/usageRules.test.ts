import { describe, expect, it } from 'vitest';
import { charge, DEFAULT_PRICES } from '../../shared/domain/pricing.js';
import { billingPeriod, hourOf } from '../../shared/domain/usage.js';
import { serializeUsage } from '../../shared/domain/wire/usage.js';

const pricing = { prices: { ...DEFAULT_PRICES, t4: 1 }, customPrices: new Map([['acme/special', 3]]) };

describe('pricing', () => {
  it('charges seconds times the machine type’s price, divided by split', () => {
    expect(charge(pricing, 'acme/x', 't4', 4, 10)).toEqual({ billingClass: 't4', pricePerSecond: 1, computeSeconds: 10, costDollars: 2.5 });
  });

  it('bills a function with a custom price as "other" at that price', () => {
    expect(charge(pricing, 'acme/special', 'a100', 1, 2)).toEqual({ billingClass: 'other', pricePerSecond: 3, computeSeconds: 2, costDollars: 6 });
  });
});

describe('billing periods', () => {
  it('is the calendar month in UTC', () => {
    const midMonth = Date.UTC(2024, 1, 15, 12) / 1000;
    expect(billingPeriod(midMonth)).toEqual({ start: Date.UTC(2024, 1, 1) / 1000, end: Date.UTC(2024, 2, 1) / 1000 });
    const lastSecond = Date.UTC(2024, 11, 31, 23, 59, 59) / 1000;
    expect(billingPeriod(lastSecond)).toEqual({ start: Date.UTC(2024, 11, 1) / 1000, end: Date.UTC(2025, 0, 1) / 1000 });
  });

  it('buckets usage by the UTC hour', () => {
    expect(hourOf(Date.UTC(2024, 0, 1, 5, 59, 59) / 1000)).toBe(Date.UTC(2024, 0, 1, 5) / 1000);
  });
});

describe('usage as answers print it', () => {
  it('prints seconds to the microsecond and dollars to the billionth, without float noise, the totals the sums of the parts', () => {
    const totals = new Map([
      ['cpu', { computeSeconds: 0.1 + 0.2, costDollars: 0.1 + 0.2 }],
      ['t4', { computeSeconds: 1.0000004, costDollars: 0.0000000004 }],
      ['l4', { computeSeconds: 0, costDollars: 0.000000014 + 0.000000014 * 2 }],
    ] as const);
    const report = serializeUsage(new Map(totals));
    expect(report.cpu).toEqual({ compute_seconds: 0.3, cost_dollars: 0.3 });
    expect(report.t4).toEqual({ compute_seconds: 1, cost_dollars: 0 });
    expect(report.l4.cost_dollars).toBe(0.000000042);
    expect(report.total_cost_dollars).toBe(0.300000042);
    expect(report.total_compute_seconds).toBe(1.3);
    expect(JSON.stringify(report)).not.toMatch(/\d\.\d{10,}|e-1\d/);
  });
});
