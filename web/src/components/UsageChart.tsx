/** One bar of the chart: its label and its value per series (machine type). */
export interface Bucket {
  label: string;
  values: Record<string, number>;
}

const COLORS = ['#1f6feb', '#d29922', '#8957e5', '#2da44e', '#cf222e', '#0e8a7e', '#bf3989', '#6e7781'];
const WIDTH = 720;
const HEIGHT = 220;
const MARGIN = { top: 10, right: 10, bottom: 28, left: 64 };

/** Stacked bars drawn as SVG: a bar per bucket, a colour per machine type that has any usage. */
export function UsageChart({ buckets, format }: { buckets: Bucket[]; format: (value: number) => string }) {
  const series = [
    ...new Set(
      buckets.flatMap((bucket) =>
        Object.entries(bucket.values)
          .filter(([, value]) => value > 0)
          .map(([name]) => name),
      ),
    ),
  ].sort();
  const totals = buckets.map((bucket) => series.reduce((sum, name) => sum + (bucket.values[name] ?? 0), 0));
  const max = Math.max(...totals, 0);
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const step = plotWidth / Math.max(buckets.length, 1);
  const y = (value: number) => (max === 0 ? 0 : (value / max) * plotHeight);
  const labelEvery = Math.ceil(buckets.length / 12);
  return (
    <figure class="chart" data-testid="usage-chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label="Usage by machine type over time">
        {[0, 0.5, 1].map((fraction) => (
          <g key={fraction}>
            <line
              x1={MARGIN.left}
              x2={WIDTH - MARGIN.right}
              y1={MARGIN.top + plotHeight - fraction * plotHeight}
              y2={MARGIN.top + plotHeight - fraction * plotHeight}
              class="grid-line"
            />
            <text x={MARGIN.left - 6} y={MARGIN.top + plotHeight - fraction * plotHeight + 4} text-anchor="end" class="axis">
              {format(max * fraction)}
            </text>
          </g>
        ))}
        {buckets.map((bucket, index) => {
          let base = MARGIN.top + plotHeight;
          return (
            <g key={index}>
              <title>{`${bucket.label}: ${format(totals[index] ?? 0)}`}</title>
              {series.map((name, seriesIndex) => {
                const height = y(bucket.values[name] ?? 0);
                base -= height;
                return height > 0 ? (
                  <rect
                    key={name}
                    x={MARGIN.left + index * step + step * 0.15}
                    y={base}
                    width={step * 0.7}
                    height={height}
                    fill={COLORS[seriesIndex % COLORS.length]}
                  />
                ) : null;
              })}
              {index % labelEvery === 0 && (
                <text x={MARGIN.left + index * step + step / 2} y={HEIGHT - 8} text-anchor="middle" class="axis">
                  {bucket.label}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption class="legend">
        {series.length === 0 ? (
          <span class="muted">No usage in this range.</span>
        ) : (
          series.map((name, index) => (
            <span key={name}>
              <i style={{ background: COLORS[index % COLORS.length] }} /> {name}
            </span>
          ))
        )}
      </figcaption>
    </figure>
  );
}
