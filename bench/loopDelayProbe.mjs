// Loaded into the benched service with `node --import`: the event loop's delay histogram
// (perf_hooks.monitorEventLoopDelay, 1 ms resolution). On SIGUSR2 it writes the histogram since
// the last signal to BENCH_LOOP_DELAY_FILE as JSON (milliseconds) and starts a new one.
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const histogram = monitorEventLoopDelay({ resolution: 1 });
histogram.enable();
process.on('SIGUSR2', () => {
  const ms = (ns) => ns / 1e6;
  const figures = { p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), p999: ms(histogram.percentile(99.9)), max: ms(histogram.max) };
  writeFileSync(process.env.BENCH_LOOP_DELAY_FILE, JSON.stringify(figures));
  histogram.reset();
});
