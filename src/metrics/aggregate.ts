import type { FamilySnapshot, HistogramFamily, MergeRule, ScalarFamily, SummaryFamily } from './exposition.ts';

// JSON carries NaN as null; anything that is not a number is "no value".
const numberOr = (value: unknown, fallback: number): number => (typeof value === 'number' ? value : fallback);

function combine(rule: MergeRule, a: number, b: number): number {
  if (rule === 'sum') return a + b;
  return rule === 'min' ? Math.min(a, b) : Math.max(a, b);
}

// The higher of two quantile values, where NaN means "nothing observed" rather than "unknown".
function higher(a: number, b: number): number {
  if (Number.isNaN(a)) return b;
  return Number.isNaN(b) ? a : Math.max(a, b);
}

function copyOf(family: FamilySnapshot): FamilySnapshot {
  if (family.type === 'histogram') return { ...family, series: family.series.map((s) => ({ ...s, counts: [...s.counts] })) };
  if (family.type === 'summary') return { ...family, series: family.series.map((s) => ({ ...s, values: s.values.map((v) => numberOr(v, NaN)) })) };
  return { ...family, series: family.series.map((s) => ({ ...s })) };
}

// Adds `from`'s series into `into`'s: matched by label text, new ones appended in order.
function mergeSeries<S extends { labels: string }>(into: S[], from: readonly S[], add: (target: S, source: S) => void, copy: (source: S) => S): void {
  const index = new Map(into.map((series) => [series.labels, series]));
  for (const series of from) {
    const found = index.get(series.labels);
    if (found !== undefined) add(found, series);
    else into.push(copy(series));
  }
}

function sameBounds(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((bound, i) => bound === b[i]);
}

function mergeInto(into: FamilySnapshot, from: FamilySnapshot): void {
  if (into.type === 'histogram' && from.type === 'histogram') {
    // Bounds differ only between builds; counts of different buckets cannot be added.
    if (!sameBounds(into.bounds, from.bounds)) return;
    const copy = (copyOf(from) as HistogramFamily).series;
    mergeSeries(into.series, copy, (t, s) => {
      t.counts = t.counts.map((n, i) => n + numberOr(s.counts[i], 0));
      t.sum += s.sum;
    }, (s) => s);
  } else if (into.type === 'summary' && from.type === 'summary') {
    const copy = (copyOf(from) as SummaryFamily).series;
    mergeSeries(into.series, copy, (t, s) => {
      t.values = t.values.map((v, i) => higher(v, numberOr(s.values[i], NaN)));
      t.sum += s.sum;
      t.count += s.count;
    }, (s) => s);
  } else if ((into.type === 'counter' || into.type === 'gauge') && into.type === from.type) {
    const rule = into.merge;
    mergeSeries(into.series, (from as ScalarFamily).series, (t, s) => {
      t.value = combine(rule, t.value, numberOr(s.value, NaN));
    }, (s) => ({ ...s }));
  }
}

/**
 * One view of several processes' families: counters and histograms summed, gauges by their merge
 * rule, summaries with the highest value per quantile and summed `_sum`/`_count`. Families keep
 * the order in which they first appear.
 */
export function mergeSnapshots(parts: readonly (readonly FamilySnapshot[])[]): FamilySnapshot[] {
  const byName = new Map<string, FamilySnapshot>();
  for (const part of parts) {
    for (const family of part) {
      const into = byName.get(family.name);
      if (into === undefined) byName.set(family.name, copyOf(family));
      else mergeInto(into, family);
    }
  }
  return [...byName.values()];
}

/**
 * The part of a process's families that only ever grows (counters, histograms, a summary's
 * `_sum`/`_count`): what the primary keeps of a worker that died or did not answer in time, so the
 * summed counters never go backwards (Prometheus would read that as a reset).
 */
export function cumulativePart(families: readonly FamilySnapshot[]): FamilySnapshot[] {
  const kept: FamilySnapshot[] = [];
  for (const family of families) {
    if (family.type === 'gauge') continue;
    if (family.type === 'summary') kept.push({ ...family, series: family.series.map((s) => ({ ...s, values: family.quantiles.map(() => NaN) })) });
    else kept.push(family);
  }
  return kept;
}
