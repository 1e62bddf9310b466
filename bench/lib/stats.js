// Medians and the markdown tables of results.

/** The median of numbers (mean of the middle two for an even count). */
export function median(values) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Per-metric medians of a server's rounds. */
export function summarize(rounds) {
  return {
    rps: median(rounds.map((r) => r.rps)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    loadCpu: median(rounds.map((r) => r.loadCpu)),
    cpuUs: median(rounds.map((r) => r.cpuUs)),
    dbCpuUs: median(rounds.map((r) => r.dbCpuUs)),
    failed: rounds.reduce((sum, r) => sum + r.failed, 0),
    rounds,
  };
}

/**
 * `metric` of `a` over `b`, divided round by round (the two were measured in the same round, so a
 * noisy machine moves both): the median of those ratios, and their lowest and highest.
 */
export function paired(a, b, metric = 'cpuUs') {
  const ratios = (a?.rounds ?? []).map((r, i) => r[metric] / b?.rounds[i]?.[metric]).filter(Number.isFinite);
  return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
}

// Judged on the figures as printed (two decimals), so a printed 0.90× meets a goal of 0.90×.
const shown = (value) => Math.round(value * 100) / 100;

/** met (in every round), met in the median, or MISSED, for a paired ratio that should be at least `goal`. */
export function verdict(p, goal) {
  if (!Number.isFinite(p.median)) return 'not measured';
  if (shown(p.min) >= goal) return 'met';
  return shown(p.median) >= goal ? 'met in the median' : 'MISSED';
}

/** The same for a paired ratio that should be at most `goal`. */
export function verdictAtMost(p, goal) {
  if (!Number.isFinite(p.median)) return 'not measured';
  if (shown(p.max) <= goal) return 'met';
  return shown(p.median) <= goal ? 'met in the median' : 'MISSED';
}

/** A paired ratio as `1.02× (0.97–1.08)`: the median, then the range over rounds. */
export const pairedText = (p) => (Number.isFinite(p.median) ? `${p.median.toFixed(2)}× (${p.min.toFixed(2)}–${p.max.toFixed(2)})` : '–');

export const fixed = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
export const ratio = (value, base) => (Number.isFinite(value) && base > 0 ? `${(value / base).toFixed(2)}×` : '');

/** A markdown table from a header row and rows of cells. */
export function markdownTable(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
