import { useEffect, useState } from 'preact/hooks';
import { api, withQuery } from '../api/client.js';
import type { Credits, MachineUsage, UsagePerFunction, UsageReport } from '../api/types.js';
import { BudgetLine } from '../components/BudgetLine.js';
import { Failure, Loading, Section } from '../components/common.js';
import type { Bucket } from '../components/UsageChart.js';
import { UsageChart } from '../components/UsageChart.js';
import { formatDollars, formatSeconds } from '../lib/format.js';
import { href, navigate } from '../lib/router.js';

const HOUR = 3_600_000;
const RANGES: Record<string, { label: string; buckets: number; size: number }> = {
  '24h': { label: 'Last 24 hours', buckets: 24, size: HOUR },
  '7d': { label: 'Last 7 days', buckets: 7, size: 24 * HOUR },
  '30d': { label: 'Last 30 days', buckets: 30, size: 24 * HOUR },
};

const machineTypes = (report: UsageReport) => Object.entries(report).filter((entry): entry is [string, MachineUsage] => typeof entry[1] === 'object');
const rangeQuery = (start: number, end: number) => ({ start_timestamp: start / 1000, end_timestamp: end / 1000 });

interface Loaded {
  buckets: { label: string; report: UsageReport }[];
  total: UsageReport;
  perFunction: UsagePerFunction;
  credits: Credits;
}

/** Cost and compute seconds by machine type over a range (a bar per hour or day), and per function. */
export function Usage({ query }: { query: URLSearchParams }) {
  const rangeName = RANGES[query.get('range') ?? ''] ? (query.get('range') as string) : '24h';
  const metric = query.get('metric') === 'cost' ? 'cost' : 'seconds';
  const [loaded, setLoaded] = useState<Loaded>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    const range = RANGES[rangeName] as (typeof RANGES)[string];
    // Buckets end at the next whole hour, so the current one is included.
    const end = Math.ceil(Date.now() / HOUR) * HOUR;
    const start = end - range.buckets * range.size;
    const starts = Array.from({ length: range.buckets }, (_, index) => start + index * range.size);
    const label = (time: number) =>
      range.size === HOUR
        ? new Date(time).toLocaleTimeString(undefined, { hour: '2-digit' })
        : new Date(time).toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
    setLoaded(undefined);
    Promise.all([
      Promise.all(
        starts.map((from) => api<UsageReport>(withQuery('/v2/usage', rangeQuery(from, from + range.size))).then((report) => ({ label: label(from), report }))),
      ),
      api<UsageReport>(withQuery('/v2/usage', rangeQuery(start, end))),
      api<UsagePerFunction>(withQuery('/v2/usage/function', rangeQuery(start, end))),
      api<Credits>('/v2/usage/credits'),
    ]).then(
      ([buckets, total, perFunction, credits]) => setLoaded({ buckets, total, perFunction, credits }),
      (failure: Error) => setError(failure.message),
    );
  }, [rangeName]);

  const go = (changes: Record<string, string>) => navigate(href(['usage'], { range: rangeName, metric, ...changes }));
  const pick = (usage: MachineUsage) => (metric === 'cost' ? usage.cost_dollars : usage.compute_seconds);
  const format = metric === 'cost' ? formatDollars : formatSeconds;
  const chartBuckets: Bucket[] = (loaded?.buckets ?? []).map(({ label, report }) => ({
    label,
    values: Object.fromEntries(machineTypes(report).map(([name, usage]) => [name, pick(usage)])),
  }));
  return (
    <>
      <div class="page-header">
        <h1>Usage</h1>
        <select aria-label="Range" value={rangeName} onChange={(event) => go({ range: (event.currentTarget as HTMLSelectElement).value })}>
          {Object.entries(RANGES).map(([name, range]) => (
            <option key={name} value={name}>
              {range.label}
            </option>
          ))}
        </select>
        <select aria-label="Measure" value={metric} onChange={(event) => go({ metric: (event.currentTarget as HTMLSelectElement).value })}>
          <option value="seconds">Compute seconds</option>
          <option value="cost">Cost</option>
        </select>
      </div>
      <Failure message={error} />
      {!loaded && !error && <Loading />}
      {loaded && (
        <>
          <div class="stats">
            <div class="card stat">
              <span class="muted">Compute</span>
              <strong data-testid="total-seconds">{formatSeconds(loaded.total.total_compute_seconds)}</strong>
            </div>
            <div class="card stat">
              <span class="muted">Cost</span>
              <strong data-testid="total-cost">{formatDollars(loaded.total.total_cost_dollars)}</strong>
            </div>
            <BudgetLine credits={loaded.credits} />
          </div>
          <Section title={`${metric === 'cost' ? 'Cost' : 'Compute seconds'} by machine type`}>
            <UsageChart buckets={chartBuckets} format={format} />
            <UsageTable rows={machineTypes(loaded.total).filter(([, usage]) => usage.compute_seconds > 0)} first="Machine type" />
          </Section>
          <Section title="By function">
            <UsageTable
              rows={Object.entries(loaded.perFunction).map(([name, report]) => [
                name,
                { compute_seconds: report.total_compute_seconds, cost_dollars: report.total_cost_dollars },
              ])}
              first="Function"
              testId="usage-by-function"
            />
          </Section>
        </>
      )}
    </>
  );
}

function UsageTable({ rows, first, testId }: { rows: [string, MachineUsage][]; first: string; testId?: string }) {
  if (rows.length === 0) return <p class="muted">Nothing used in this range.</p>;
  return (
    <table class="list" data-testid={testId}>
      <thead>
        <tr>
          <th>{first}</th>
          <th class="number">Compute</th>
          <th class="number">Cost</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([name, usage]) => (
          <tr key={name}>
            <td>{name}</td>
            <td class="number">{formatSeconds(usage.compute_seconds)}</td>
            <td class="number">{formatDollars(usage.cost_dollars)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
