import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { FamilySnapshot } from './exposition.ts';
import type { Collector } from './registry.ts';

const RESOLUTION_MS = 10;
// Quantiles cover the current window and the one before it: 30 to 60 s of history.
const WINDOW_MS = 30_000;
const QUANTILES: readonly number[] = [0.5, 0.9, 0.99, 1];

// The monitor records whole timer intervals (about 10 ms when idle); the lag is what exceeds it.
const lagSeconds = (ns: number): number => Math.max(0, (ns - RESOLUTION_MS * 1e6) / 1e9);

/** A collector that also owns a timer and a native monitor, released by close(). */
export interface ClosableCollector extends Collector {
  close(): void;
}

/**
 * `nodejs_eventloop_lag_seconds` as a summary, from perf_hooks' monitorEventLoopDelay: quantiles
 * (and the maximum, quantile 1) over the last 30–60 s, each the higher of the previous and the current
 * window (an upper bound, which is what an alert wants), with a cumulative `_sum`/`_count`, so
 * rate(_sum)/rate(_count) is the exact mean lag over any range.
 */
export function eventLoopLag(): ClosableCollector {
  const monitor = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  monitor.enable();
  let previous: number[] = QUANTILES.map(() => NaN);
  let closedSum = 0;
  let closedCount = 0;
  const current = (): number[] =>
    QUANTILES.map((q) => (monitor.count === 0 ? NaN : lagSeconds(q === 1 ? monitor.max : monitor.percentile(q * 100))));
  const windowSum = (): number => (monitor.count === 0 ? 0 : lagSeconds(monitor.mean) * monitor.count);
  const timer = setInterval(() => {
    previous = current();
    closedSum += windowSum();
    closedCount += monitor.count;
    monitor.reset();
  }, WINDOW_MS);
  timer.unref();
  return {
    name: 'nodejs_eventloop_lag_seconds',
    snapshot(): FamilySnapshot {
      const now = current();
      // Math.max would turn a missing (NaN) window into NaN; the other window still speaks.
      const values = now.map((value, i) => {
        const before = previous[i] ?? NaN;
        return Number.isNaN(value) ? before : Number.isNaN(before) ? value : Math.max(value, before);
      });
      return {
        type: 'summary',
        name: 'nodejs_eventloop_lag_seconds',
        help: 'Event loop delay beyond the 10 ms sampling interval, over the last 30-60 s (quantile 1 is the maximum).',
        quantiles: QUANTILES,
        series: [{ labels: '', values, sum: closedSum + windowSum(), count: closedCount + monitor.count }],
      };
    },
    close() {
      clearInterval(timer);
      monitor.disable();
    },
  };
}
