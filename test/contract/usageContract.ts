import { describe, expect, it } from 'vitest';
import type { BillingClass } from '../../shared/domain/machineTypes.js';
import { HOUR_SECONDS, type UsageTotals } from '../../shared/domain/usage.js';
import type { UsageQuery } from '../../shared/ports/store.js';
import { anIncrement } from '../support/fixtures.js';
import type { CurrentStore } from './storeContract.js';

const H = anIncrement().hour;
/** org-1's usage over a day around H. */
const day: UsageQuery = { organizationId: 'org-1', fromHour: H - 12 * HOUR_SECONDS, toHour: H + 12 * HOUR_SECONDS };

/** The totals as a plain object, billing classes in order, for exact comparisons. */
const plain = (totals: Map<BillingClass, UsageTotals>) => Object.fromEntries([...totals].sort(([a], [b]) => (a < b ? -1 : 1)));

export function describeUsageContract(store: CurrentStore): void {
  describe('usage', () => {
    it('recordJob adds the increment and answers true; totals return it under its billing class', async () => {
      expect(await store().usage.recordJob('job-1', anIncrement({ computeSeconds: 90, costDollars: 0.5 }))).toBe(true);
      expect(plain(await store().usage.totals(day))).toEqual({ a100: { computeSeconds: 90, costDollars: 0.5 } });
    });

    it('totals is empty when nothing was used', async () => {
      expect((await store().usage.totals(day)).size).toBe(0);
    });

    it('increments of the same organization, version, class and hour add up, whether by job or not', async () => {
      await store().usage.recordJob('job-1', anIncrement({ computeSeconds: 60, costDollars: 1 }));
      await store().usage.recordJob('job-2', anIncrement({ computeSeconds: 30, costDollars: 0.5 }));
      await store().usage.add(anIncrement({ computeSeconds: 10, costDollars: 0.25 }));
      expect(plain(await store().usage.totals(day))).toEqual({ a100: { computeSeconds: 100, costDollars: 1.75 } });
    });

    it('add counts every call: it keeps no marker, and does not stop a job from being recorded', async () => {
      await store().usage.add(anIncrement({ computeSeconds: 5, costDollars: 1 }));
      await store().usage.add(anIncrement({ computeSeconds: 5, costDollars: 1 }));
      expect(await store().usage.recordJob('job-1', anIncrement({ computeSeconds: 5, costDollars: 1 }))).toBe(true);
      expect(plain(await store().usage.totals(day))).toEqual({ a100: { computeSeconds: 15, costDollars: 3 } });
    });

    it('totals sum each billing class apart, over hours and versions, and leave out classes with no usage', async () => {
      await store().usage.add(anIncrement({ billingClass: 'a100', computeSeconds: 10, costDollars: 1 }));
      await store().usage.add(anIncrement({ billingClass: 'a100', hour: H + HOUR_SECONDS, computeSeconds: 20, costDollars: 2 }));
      await store().usage.add(anIncrement({ billingClass: 'a100', versionId: 'version-2', functionId: 'function-2', computeSeconds: 40, costDollars: 4 }));
      await store().usage.add(anIncrement({ billingClass: 'cpu', computeSeconds: 7, costDollars: 0.5 }));
      await store().usage.add(anIncrement({ billingClass: 'other', hour: H - HOUR_SECONDS, computeSeconds: 3, costDollars: 0.25 }));
      expect(plain(await store().usage.totals(day))).toEqual({
        a100: { computeSeconds: 70, costDollars: 7 },
        cpu: { computeSeconds: 7, costDollars: 0.5 },
        other: { computeSeconds: 3, costDollars: 0.25 },
      });
    });

    it("totals count only the organization's own usage", async () => {
      await store().usage.add(anIncrement({ computeSeconds: 10, costDollars: 1 }));
      await store().usage.add(anIncrement({ organizationId: 'org-2', computeSeconds: 99, costDollars: 9 }));
      expect(plain(await store().usage.totals(day))).toEqual({ a100: { computeSeconds: 10, costDollars: 1 } });
      expect(plain(await store().usage.totals({ ...day, organizationId: 'org-2' }))).toEqual({ a100: { computeSeconds: 99, costDollars: 9 } });
      expect((await store().usage.totals({ ...day, organizationId: 'org-3' })).size).toBe(0);
    });

    it('totals of one version count only that version', async () => {
      await store().usage.add(anIncrement({ versionId: 'version-1', computeSeconds: 10, costDollars: 1 }));
      await store().usage.add(anIncrement({ versionId: 'version-1', billingClass: 'cpu', hour: H + HOUR_SECONDS, computeSeconds: 2, costDollars: 0.5 }));
      await store().usage.add(anIncrement({ versionId: 'version-2', computeSeconds: 20, costDollars: 2 }));
      await store().usage.add(anIncrement({ organizationId: 'org-2', versionId: 'version-1', computeSeconds: 40, costDollars: 4 }));
      expect(plain(await store().usage.totals({ ...day, versionId: 'version-1' }))).toEqual({
        a100: { computeSeconds: 10, costDollars: 1 },
        cpu: { computeSeconds: 2, costDollars: 0.5 },
      });
      expect(plain(await store().usage.totals({ ...day, versionId: 'version-2' }))).toEqual({ a100: { computeSeconds: 20, costDollars: 2 } });
      expect((await store().usage.totals({ ...day, versionId: 'version-3' })).size).toBe(0);
    });

    it('totals count hours from fromHour, included, up to toHour, excluded', async () => {
      const hours = [-2, -1, 0, 1, 2, 3].map((offset) => H + offset * HOUR_SECONDS);
      for (const [index, hour] of hours.entries()) await store().usage.add(anIncrement({ hour, computeSeconds: 2 ** index, costDollars: 0 }));
      const seconds = async (fromHour: number, toHour: number) =>
        (await store().usage.totals({ organizationId: 'org-1', fromHour, toHour })).get('a100')?.computeSeconds;
      // Hours H-1, H and H+1 (indexes 1, 2, 3): not H-2 before fromHour, not H+2 at toHour.
      expect(await seconds(H - HOUR_SECONDS, H + 2 * HOUR_SECONDS)).toBe(2 + 4 + 8);
      expect(await seconds(H, H + HOUR_SECONDS)).toBe(4);
      expect(await seconds(H, H)).toBeUndefined();
      expect(await seconds(H + HOUR_SECONDS, H)).toBeUndefined();
      expect(await seconds(H + 10 * HOUR_SECONDS, H + 20 * HOUR_SECONDS)).toBeUndefined();
    });

    it('totals over several days count each hour once, whole days and the hours at both edges alike', async () => {
      const DAY = 24 * HOUR_SECONDS;
      const firstDay = H - (H % DAY) + DAY;
      // One second at every hour of four days, and 1,000 at the hour before them.
      await store().usage.add(anIncrement({ hour: firstDay - HOUR_SECONDS, computeSeconds: 1000, costDollars: 0 }));
      for (let hour = firstDay; hour < firstDay + 4 * DAY; hour += HOUR_SECONDS)
        await store().usage.recordJob(`job-${hour}`, anIncrement({ hour, computeSeconds: 1, costDollars: 0 }));
      const seconds = async (fromHour: number, toHour: number) =>
        (await store().usage.totals({ organizationId: 'org-1', fromHour, toHour })).get('a100')?.computeSeconds;
      expect(await seconds(firstDay, firstDay + 4 * DAY)).toBe(96);
      expect(await seconds(firstDay + 5 * HOUR_SECONDS, firstDay + 3 * DAY + 7 * HOUR_SECONDS)).toBe(3 * 24 + 2);
      expect(await seconds(firstDay - HOUR_SECONDS, firstDay + DAY)).toBe(1024);
      expect(await seconds(firstDay + DAY + HOUR_SECONDS, firstDay + DAY + 3 * HOUR_SECONDS)).toBe(2);
      const byFunction = await store().usage.totalsByFunction({
        organizationId: 'org-1',
        versionId: anIncrement().versionId,
        fromHour: firstDay - 2 * HOUR_SECONDS,
        toHour: firstDay + 2 * DAY + HOUR_SECONDS,
      });
      expect(byFunction.get(anIncrement().functionId)?.get('a100')?.computeSeconds).toBe(1000 + 49);
    });

    it('recordJob a second time for the same job changes nothing and answers false', async () => {
      expect(await store().usage.recordJob('job-1', anIncrement({ computeSeconds: 60, costDollars: 1 }))).toBe(true);
      expect(await store().usage.recordJob('job-1', anIncrement({ computeSeconds: 60, costDollars: 1 }))).toBe(false);
      expect(await store().usage.recordJob('job-1', anIncrement({ billingClass: 'cpu', hour: H + HOUR_SECONDS, computeSeconds: 5, costDollars: 5 }))).toBe(
        false,
      );
      expect(plain(await store().usage.totals(day))).toEqual({ a100: { computeSeconds: 60, costDollars: 1 } });
    });

    it('recordJob called at once for the same job counts it exactly once', async () => {
      const results = await Promise.all(Array.from({ length: 5 }, () => store().usage.recordJob('job-1', anIncrement({ computeSeconds: 60, costDollars: 1 }))));
      expect(results.filter((counted) => counted)).toHaveLength(1);
      expect(plain(await store().usage.totals(day))).toEqual({ a100: { computeSeconds: 60, costDollars: 1 } });
    });

    it('recordJob calls at once for different jobs all count', async () => {
      const results = await Promise.all(
        Array.from({ length: 5 }, (_, index) => store().usage.recordJob(`job-${index}`, anIncrement({ computeSeconds: 60, costDollars: 1 }))),
      );
      expect(results).toEqual([true, true, true, true, true]);
      expect(plain(await store().usage.totals(day))).toEqual({ a100: { computeSeconds: 300, costDollars: 5 } });
    });

    it('fractional seconds and dollars sum to within floating-point rounding', async () => {
      for (let index = 0; index < 10; index++) await store().usage.add(anIncrement({ computeSeconds: 0.1, costDollars: 0.000_012_3 }));
      await store().usage.recordJob('job-1', anIncrement({ computeSeconds: 1 / 3, costDollars: 1e-7 }));
      const totals = (await store().usage.totals(day)).get('a100');
      expect(totals?.computeSeconds).toBeCloseTo(1 + 1 / 3, 9);
      expect(totals?.costDollars).toBeCloseTo(0.000_123 + 1e-7, 12);
    });

    it('totalsByFunction sums by function, then billing class, of the organization (and version) asked for', async () => {
      await store().usage.add(anIncrement({ computeSeconds: 60, costDollars: 1 }));
      await store().usage.add(anIncrement({ versionId: 'version-2', computeSeconds: 30, costDollars: 0.5 }));
      await store().usage.add(anIncrement({ billingClass: 'cpu', computeSeconds: 10, costDollars: 0.1 }));
      await store().usage.add(anIncrement({ functionId: 'function-2', versionId: 'version-3', computeSeconds: 5, costDollars: 0.05 }));
      await store().usage.add(anIncrement({ organizationId: 'org-2', computeSeconds: 1000, costDollars: 100 }));
      await store().usage.add(anIncrement({ hour: H + 24 * HOUR_SECONDS, computeSeconds: 1000, costDollars: 100 }));
      const byFunction = await store().usage.totalsByFunction(day);
      expect([...byFunction.keys()].sort()).toEqual(['function-1', 'function-2']);
      expect(plain(byFunction.get('function-1') as Map<BillingClass, UsageTotals>)).toEqual({
        a100: { computeSeconds: 90, costDollars: 1.5 },
        cpu: { computeSeconds: 10, costDollars: 0.1 },
      });
      expect(plain(byFunction.get('function-2') as Map<BillingClass, UsageTotals>)).toEqual({ a100: { computeSeconds: 5, costDollars: 0.05 } });
      const ofVersion = await store().usage.totalsByFunction({ ...day, versionId: 'version-2' });
      expect(plain(ofVersion.get('function-1') as Map<BillingClass, UsageTotals>)).toEqual({ a100: { computeSeconds: 30, costDollars: 0.5 } });
      expect(await store().usage.totalsByFunction({ ...day, organizationId: 'org-3' })).toEqual(new Map());
    });
  });
}
