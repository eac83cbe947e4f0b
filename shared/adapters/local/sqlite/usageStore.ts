import type { BillingClass } from '../../../domain/machineTypes.js';
import type { UsageIncrement, UsageTotals } from '../../../domain/usage.js';
import type { UsageQuery, UsageStore } from '../../../ports/store.js';
import type { SqliteDatabase } from './database.js';
import type { GroupCommit } from './groupCommit.js';
import { dayOf, usageSpans } from './usageSpans.js';

interface TotalsRow {
  billing_class: BillingClass;
  compute_seconds: number;
  cost_dollars: number;
}

type FunctionTotalsRow = TotalsRow & { function_id: string };

type UpsertParameters = [string, string, string, number, string, number, number];

/**
 * Usage in SQLite: aggregate rows by hour and by day (a range reads its whole days and the
 * hours at its edges, usageSpans.ts), and a marker per job counted. recordJob inserts the
 * marker and adds to the aggregate in one transaction: a crash commits both or neither, so a
 * job is never counted twice nor lost, and a repeat finds the marker and adds nothing.
 *
 * The jobs of one commit mostly share an hour row (their organization's, version's, class's):
 * their increments are summed in memory and each row is written once, just before COMMIT
 * (GroupCommit.beforeCommit), instead of one upsert per job. Reads add what is kept back first.
 */
export function sqliteUsageStore(db: SqliteDatabase, writes: GroupCommit): UsageStore {
  const mark = db.prepare<[string]>('INSERT INTO usage_jobs (job_id) VALUES (?) ON CONFLICT (job_id) DO NOTHING');
  const upsertInto = (table: 'usage_hours' | 'usage_days', time: 'hour' | 'day') =>
    db.prepare<UpsertParameters>(
      `INSERT INTO ${table} (organization_id, version_id, billing_class, ${time}, function_id, compute_seconds, cost_dollars)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (organization_id, version_id, billing_class, ${time}) DO UPDATE SET
         function_id = excluded.function_id,
         compute_seconds = compute_seconds + excluded.compute_seconds,
         cost_dollars = cost_dollars + excluded.cost_dollars`,
    );
  const upsertHour = upsertInto('usage_hours', 'hour');
  const upsertDay = upsertInto('usage_days', 'day');
  /** Adds to the hour's row and to its day's. */
  const add = (increment: UsageIncrement) => {
    const { organizationId, versionId, billingClass, hour, functionId, computeSeconds, costDollars } = increment;
    upsertHour.run(organizationId, versionId, billingClass, hour, functionId, computeSeconds, costDollars);
    upsertDay.run(organizationId, versionId, billingClass, dayOf(hour), functionId, computeSeconds, costDollars);
  };
  /** Increments of the open transaction not yet written, by hour row. */
  const kept = new Map<string, UsageIncrement>();
  const keep = (increment: UsageIncrement) => {
    const row = `${increment.organizationId}\u0000${increment.versionId}\u0000${increment.billingClass}\u0000${increment.hour}`;
    const sum = kept.get(row);
    if (sum === undefined) kept.set(row, { ...increment });
    else kept.set(row, { ...increment, computeSeconds: sum.computeSeconds + increment.computeSeconds, costDollars: sum.costDollars + increment.costDollars });
  };
  const writeKept = () => {
    for (const increment of kept.values()) add(increment);
    kept.clear();
  };
  writes.beforeCommit(writeKept);
  writes.onRollback(() => kept.clear());

  /**
   * SUM by `columns` over a range: its whole days from usage_days, its edge hours from
   * usage_hours (usageSpans), each part read from its table's index in (organization, time)
   * or in the primary key for one version.
   */
  const summed = <Row>(columns: string, ofVersion: boolean) => {
    const version = ofVersion ? ' AND version_id = ?' : '';
    const part = (table: string, time: string) =>
      `SELECT ${columns}, compute_seconds, cost_dollars FROM ${table} WHERE organization_id = ?${version} AND ${time} >= ? AND ${time} < ?`;
    const statement = db.prepare<(string | number)[], Row>(
      `SELECT ${columns}, SUM(compute_seconds) AS compute_seconds, SUM(cost_dollars) AS cost_dollars FROM (
         ${part('usage_days', 'day')}
         UNION ALL ${part('usage_hours', 'hour')}
         UNION ALL ${part('usage_hours', 'hour')}
       ) GROUP BY ${columns}`,
    );
    return (query: UsageQuery): Row[] => {
      const { days, head, tail } = usageSpans(query.fromHour, query.toHour);
      const owner = ofVersion ? [query.organizationId, query.versionId as string] : [query.organizationId];
      // A read sees what the open transaction kept back: GroupCommit writes it first.
      return writes.current(() => statement.all(...owner, ...days, ...owner, ...head, ...owner, ...tail));
    };
  };
  const totalsOf = { organization: summed<TotalsRow>('billing_class', false), version: summed<TotalsRow>('billing_class', true) };
  const byFunctionOf = {
    organization: summed<FunctionTotalsRow>('function_id, billing_class', false),
    version: summed<FunctionTotalsRow>('function_id, billing_class', true),
  };

  return {
    async recordJob(jobId, increment, options) {
      const write = () => {
        if (mark.run(jobId).changes === 0) return false;
        keep(increment);
        return true;
      };
      return writes.writeAs(write, options);
    },
    async add(increment) {
      await writes.write(() => add(increment));
    },
    async totals(query) {
      const rows = (query.versionId === undefined ? totalsOf.organization : totalsOf.version)(query);
      return new Map(
        rows.map((row): [BillingClass, UsageTotals] => [row.billing_class, { computeSeconds: row.compute_seconds, costDollars: row.cost_dollars }]),
      );
    },
    async totalsByFunction(query) {
      const rows = (query.versionId === undefined ? byFunctionOf.organization : byFunctionOf.version)(query);
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
