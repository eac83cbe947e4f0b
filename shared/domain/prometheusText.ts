/**
 * The Prometheus text exposition format (version 0.0.4), written by hand: counters, gauges and
 * histograms with labels are all the service exposes, and the format is a page long.
 */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type Labels = Record<string, string>;

export interface Sample {
  labels: Labels;
  value: number;
}

export interface MetricFamily {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  /** For a histogram: its `_bucket`, `_sum` and `_count` series, as `histogramSamples` makes them. */
  samples: (Sample & { suffix?: string })[];
}

/** The families as exposition text, one HELP and TYPE line each, then their samples. */
export function formatPrometheus(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
    for (const sample of family.samples) lines.push(`${family.name}${sample.suffix ?? ''}${formatLabels(sample.labels)} ${formatValue(sample.value)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** A histogram's state: cumulative counts per upper bound, and the observations' sum and count. */
export class Histogram {
  private readonly series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();

  constructor(readonly buckets: readonly number[]) {}

  observe(labels: Labels, value: number): void {
    const key = labelKey(labels);
    let entry = this.series.get(key);
    if (!entry) {
      entry = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, entry);
    }
    for (let index = 0; index < this.buckets.length; index++) {
      if (value <= (this.buckets[index] as number)) (entry.counts[index] as number) += 1;
    }
    entry.sum += value;
    entry.count += 1;
  }

  samples(): MetricFamily['samples'] {
    return [...this.series.values()].flatMap(({ labels, counts, sum, count }) => [
      ...this.buckets.map((bound, index) => ({ suffix: '_bucket', labels: { ...labels, le: formatValue(bound) }, value: counts[index] as number })),
      { suffix: '_bucket', labels: { ...labels, le: '+Inf' }, value: count },
      { suffix: '_sum', labels, value: sum },
      { suffix: '_count', labels, value: count },
    ]);
  }
}

/** Counters by label set. */
export class Counter {
  private readonly series = new Map<string, Sample>();

  increment(labels: Labels, by = 1): void {
    const key = labelKey(labels);
    const entry = this.series.get(key) ?? { labels, value: 0 };
    entry.value += by;
    this.series.set(key, entry);
  }

  samples(): Sample[] {
    return [...this.series.values()];
  }
}

/**
 * The same key for the same labels in any order (code-unit order: a locale's collation costs more
 * per job). Each name and value is prefixed with its length, so no text can make two label sets
 * one key. Made at every observation (three per job), so it is kept to one array and a string.
 */
function labelKey(labels: Labels): string {
  const names = Object.keys(labels);
  for (let index = 1; index < names.length; index++) {
    if ((names[index - 1] as string) > (names[index] as string)) {
      names.sort();
      break;
    }
  }
  let key = '';
  for (const name of names) {
    const value = labels[name] as string;
    key += `${name.length}:${name}${value.length}:${value}`;
  }
  return key;
}

function formatLabels(labels: Labels): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return '';
  return `{${entries.map(([name, value]) => `${name}="${value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')}"`).join(',')}}`;
}

function escapeHelp(help: string): string {
  return help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}
