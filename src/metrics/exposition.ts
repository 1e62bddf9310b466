// The Prometheus text exposition format 0.0.4: the snapshot types every collector produces (plain
// data, so a worker can send them to the primary over IPC) and the one function that renders them.

/** The media type of a scrape. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** How the primary combines one series' values from several processes. */
export type MergeRule = 'sum' | 'min' | 'max';

/** Labels already rendered, without braces: `method="GET",route="/api/ping"` ('' for none). */
export type LabelText = string;

/** One sample of a counter or gauge. */
export interface ScalarSeries {
  labels: LabelText;
  value: number;
}

/** A counter or gauge family. */
export interface ScalarFamily {
  type: 'counter' | 'gauge';
  name: string;
  help: string;
  merge: MergeRule;
  series: ScalarSeries[];
}

/** One histogram: `counts[i]` observations fell in bucket i alone (not cumulative); the last is +Inf. */
export interface HistogramSeries {
  labels: LabelText;
  counts: number[];
  sum: number;
}

/** A histogram family; `bounds` are the finite upper bounds (`le`), increasing. Merged by summing. */
export interface HistogramFamily {
  type: 'histogram';
  name: string;
  help: string;
  bounds: readonly number[];
  series: HistogramSeries[];
}

/** One summary: `values[i]` is the quantile `quantiles[i]` (NaN when nothing was observed). */
export interface SummarySeries {
  labels: LabelText;
  values: number[];
  sum: number;
  count: number;
}

/** A summary family. Merged with the highest value per quantile and summed `_sum`/`_count`. */
export interface SummaryFamily {
  type: 'summary';
  name: string;
  help: string;
  quantiles: readonly number[];
  series: SummarySeries[];
}

/** What a collector reports at scrape time. */
export type FamilySnapshot = ScalarFamily | HistogramFamily | SummaryFamily;

/** A sample value as the format spells it: `+Inf`, `-Inf`, `NaN`, or the shortest round-trip decimal. */
export function formatValue(value: number): string {
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  // JSON carries NaN as null, so a value that crossed IPC may arrive as null.
  return typeof value === 'number' && !Number.isNaN(value) ? String(value) : 'NaN';
}

/** A label value with `\`, `"` and newlines escaped. */
export function escapeLabelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

/** `{a="1",b="2"}`-style text (without braces) from label names and values. */
export function labelText(labels: Readonly<Record<string, string>>): LabelText {
  return Object.entries(labels)
    .map(([name, value]) => `${name}="${escapeLabelValue(value)}"`)
    .join(',');
}

function withLabel(labels: LabelText, extra: string): string {
  return labels === '' ? `{${extra}}` : `{${labels},${extra}}`;
}

function braces(labels: LabelText): string {
  return labels === '' ? '' : `{${labels}}`;
}

function renderHistogram(family: HistogramFamily, out: string[]): void {
  const { name, bounds } = family;
  for (const series of family.series) {
    let cumulative = 0;
    for (let i = 0; i <= bounds.length; i++) {
      cumulative += series.counts[i] ?? 0;
      const le = i < bounds.length ? formatValue(bounds[i] as number) : '+Inf';
      out.push(`${name}_bucket${withLabel(series.labels, `le="${le}"`)} ${cumulative}`);
    }
    out.push(`${name}_sum${braces(series.labels)} ${formatValue(series.sum)}`, `${name}_count${braces(series.labels)} ${cumulative}`);
  }
}

function renderSummary(family: SummaryFamily, out: string[]): void {
  const { name, quantiles } = family;
  for (const series of family.series) {
    quantiles.forEach((q, i) => {
      out.push(`${name}${withLabel(series.labels, `quantile="${formatValue(q)}"`)} ${formatValue(series.values[i] ?? NaN)}`);
    });
    out.push(`${name}_sum${braces(series.labels)} ${formatValue(series.sum)}`, `${name}_count${braces(series.labels)} ${series.count}`);
  }
}

/** Renders families as one scrape: `# HELP` and `# TYPE` before each family's samples. */
export function renderExposition(families: readonly FamilySnapshot[]): string {
  const out: string[] = [];
  for (const family of families) {
    out.push(`# HELP ${family.name} ${family.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`, `# TYPE ${family.name} ${family.type}`);
    if (family.type === 'histogram') renderHistogram(family, out);
    else if (family.type === 'summary') renderSummary(family, out);
    else for (const series of family.series) out.push(`${family.name}${braces(series.labels)} ${formatValue(series.value)}`);
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}
