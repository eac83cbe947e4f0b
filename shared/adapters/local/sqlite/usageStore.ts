import type { BillingClass } from '../../../domain/machineTypes.js';
import type { UsageIncrement, UsageTotals } from '../../../domain/usage.js';
import type { UsageStore } from '../../../ports/store.js';
import type { SqliteDatabase } from './database.js';
import type { GroupCommit } from './groupCommit.js';

interface TotalsRow {
  billing_class: BillingClass;
  compute_seconds: number;
  cost_dollars: number;
}

type UpsertParameters = [string, string, string, number, string, number, number];

/**
 * Usage in SQLite: hourly aggregate rows, and a marker per job counted. recordJob inserts the
 * marker and adds to the aggregate in one transaction: a crash commits both or neither, so a
 * job is never counted twice nor lost, and a repeat finds the marker and adds nothing.
 */
export function sqliteUsageStore(db: SqliteDatabase, writes: GroupCommit): UsageStore {
  const mark = db.prepare<[string]>('INSERT INTO usage_jobs (job_id) VALUES (?) ON CONFLICT (job_id) DO NOTHING');
  const upsert = db.prepare<UpsertParameters>(
    `INSERT INTO usage_hours (organization_id, version_id, billing_class, hour, function_id, compute_seconds, cost_dollars)
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (organization_id, version_id, billing_class, hour) DO UPDATE SET
       function_id = excluded.function_id,
       compute_seconds = compute_seconds + excluded.compute_seconds,
       cost_dollars = cost_dollars + excluded.cost_dollars`,
  );
  const add = (increment: UsageIncrement) =>
    upsert.run(
      increment.organizationId,
      increment.versionId,
      increment.billingClass,
      increment.hour,
      increment.functionId,
      increment.computeSeconds,
      increment.costDollars,
    );
  const recordJob = db.transaction((jobId: string, increment: UsageIncrement): boolean => {
    if (mark.run(jobId).changes === 0) return false;
    add(increment);
    return true;
  });

  const sums = 'SELECT billing_class, SUM(compute_seconds) AS compute_seconds, SUM(cost_dollars) AS cost_dollars FROM usage_hours';
  const ofOrganization = db.prepare<[string, number, number], TotalsRow>(`${sums} WHERE organization_id = ? AND hour >= ? AND hour < ? GROUP BY billing_class`);
  const ofVersion = db.prepare<[string, string, number, number], TotalsRow>(
    `${sums} WHERE organization_id = ? AND version_id = ? AND hour >= ? AND hour < ? GROUP BY billing_class`,
  );

  const byFunctionSums = 'SELECT function_id, billing_class, SUM(compute_seconds) AS compute_seconds, SUM(cost_dollars) AS cost_dollars FROM usage_hours';
  const byFunctionOfOrganization = db.prepare<[string, number, number], TotalsRow & { function_id: string }>(
    `${byFunctionSums} WHERE organization_id = ? AND hour >= ? AND hour < ? GROUP BY function_id, billing_class`,
  );
  const byFunctionOfVersion = db.prepare<[string, string, number, number], TotalsRow & { function_id: string }>(
    `${byFunctionSums} WHERE organization_id = ? AND version_id = ? AND hour >= ? AND hour < ? GROUP BY function_id, billing_class`,
  );

  return {
    async recordJob(jobId, increment) {
      return writes.write(() => recordJob.immediate(jobId, increment));
    },
    async add(increment) {
      await writes.write(() => add(increment));
    },
    async totals(query) {
      const rows =
        query.versionId === undefined
          ? ofOrganization.all(query.organizationId, query.fromHour, query.toHour)
          : ofVersion.all(query.organizationId, query.versionId, query.fromHour, query.toHour);
      return new Map(rows.map((row): [BillingClass, UsageTotals] => [row.billing_class, { computeSeconds: row.compute_seconds, costDollars: row.cost_dollars }]));
    },
    async totalsByFunction(query) {
      const rows =
        query.versionId === undefined
          ? byFunctionOfOrganization.all(query.organizationId, query.fromHour, query.toHour)
          : byFunctionOfVersion.all(query.organizationId, query.versionId, query.fromHour, query.toHour);
      const totals = new Map<string, Map<BillingClass, UsageTotals>>();
      for (const row of rows) {
        const ofFunction = totals.get(row.function_id) ?? new Map<BillingClass, UsageTotals>();
        ofFunction.set(row.billing_class, { computeSeconds: row.compute_seconds, costDollars: row.cost_dollars });
        totals.set(row.function_id, ofFunction);
      }
      return totals;
    },
  };
}
