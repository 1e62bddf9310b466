// A strict parser of the Prometheus text exposition format 0.0.4, for tests: it throws on anything
// a scraper could misread, and on a few things the format tolerates but this service never writes
// (blank lines, samples without HELP and TYPE).

/** One sample line. */
export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A metric family: its metadata and every sample, in order. */
export interface ParsedFamily {
  name: string;
  help: string;
  type: string;
  samples: ParsedSample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const FLOAT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

/** Parses a sample value: a decimal, `+Inf`, `-Inf` or `NaN`. */
export function parseValue(text: string): number {
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  if (!FLOAT.test(text)) throw new Error(`bad value ${JSON.stringify(text)}`);
  return Number(text);
}

function unescape(text: string, allowQuote: boolean): string {
  return text.replace(/\\(.)/g, (_, c: string) => {
    if (c === 'n') return '\n';
    if (c === '\\' || (allowQuote && c === '"')) return c;
    throw new Error(`bad escape \\${c}`);
  });
}

// `{a="x",b="y"}` from position 0 of `text`; returns the labels and where the rest starts.
function parseLabels(text: string): { labels: Record<string, string>; rest: string } {
  const labels: Record<string, string> = {};
  let i = 1;
  while (text[i] !== '}') {
    const eq = text.indexOf('=', i);
    const name = text.slice(i, eq);
    if (eq === -1 || !LABEL_NAME.test(name) || name.startsWith('__')) throw new Error(`bad label name in ${text}`);
    if (name in labels) throw new Error(`label ${name} twice in ${text}`);
    if (text[eq + 1] !== '"') throw new Error(`label value not quoted in ${text}`);
    const close = /^(?:[^"\\\n]|\\.)*"/.exec(text.slice(eq + 2));
    if (close === null) throw new Error(`unterminated label value in ${text}`);
    labels[name] = unescape(close[0].slice(0, -1), true);
    i = eq + 2 + close[0].length;
    if (text[i] === ',') i++;
    else if (text[i] !== '}') throw new Error(`expected , or } in ${text}`);
  }
  return { labels, rest: text.slice(i + 1) };
}

/** Parses one sample line. */
export function parseSample(line: string): ParsedSample {
  const name = /^[^{ ]+/.exec(line)?.[0] ?? '';
  if (!METRIC_NAME.test(name)) throw new Error(`bad metric name in ${JSON.stringify(line)}`);
  let rest = line.slice(name.length);
  let labels: Record<string, string> = {};
  if (rest.startsWith('{')) ({ labels, rest } = parseLabels(rest));
  const parts = rest.split(' ');
  // One space, the value, and an optional integer timestamp.
  if (parts[0] !== '' || parts.length < 2 || parts.length > 3 || (parts[2] !== undefined && !/^-?\d+$/.test(parts[2]))) {
    throw new Error(`bad sample line ${JSON.stringify(line)}`);
  }
  return { name, labels, value: parseValue(parts[1] ?? '') };
}

/** The identity of a series: its name and its labels in sorted order. */
export function seriesKey(name: string, labels: Readonly<Record<string, string>>): string {
  return `${name}{${Object.keys(labels).sort().map((k) => `${k}=${JSON.stringify(labels[k])}`).join(',')}}`;
}

function familyOf(name: string, families: Map<string, ParsedFamily>): ParsedFamily | undefined {
  const exact = families.get(name);
  if (exact !== undefined && exact.type !== 'histogram') return exact;
  const match = /^(.*)_(bucket|sum|count)$/.exec(name);
  const base = match === null ? undefined : families.get(match[1] ?? '');
  if (base === undefined || match === null) return undefined;
  if (base.type === 'histogram' || (base.type === 'summary' && match[2] !== 'bucket')) return base;
  return undefined;
}

function metadata(line: string, families: Map<string, ParsedFamily>, current: { name: string | null }, closed: Set<string>): void {
  const match = /^# (HELP|TYPE) ([^ ]+) (.*)$/.exec(line);
  if (match === null) return; // another comment
  const [, keyword = '', name = '', text = ''] = match;
  if (!METRIC_NAME.test(name)) throw new Error(`bad metric name in ${line}`);
  if (closed.has(name)) throw new Error(`family ${name} is not contiguous`);
  if (current.name !== null && current.name !== name) closed.add(current.name);
  current.name = name;
  const family = families.get(name) ?? { name, help: '', type: '', samples: [] };
  families.set(name, family);
  if (family.samples.length > 0) throw new Error(`${keyword} of ${name} after its samples`);
  if (keyword === 'HELP') {
    if (family.help !== '') throw new Error(`second HELP for ${name}`);
    family.help = unescape(text, false);
  } else {
    if (family.type !== '') throw new Error(`second TYPE for ${name}`);
    if (!TYPES.has(text)) throw new Error(`bad TYPE ${text}`);
    family.type = text;
  }
}

/** Parses a whole scrape; throws on the first violation. Every family is checked by checkFamily. */
export function parseExposition(text: string): Map<string, ParsedFamily> {
  const families = new Map<string, ParsedFamily>();
  if (text === '') return families;
  if (!text.endsWith('\n')) throw new Error('the last line must end with a line feed');
  const current = { name: null as string | null };
  const closed = new Set<string>();
  const seen = new Set<string>();
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '' || line.includes('\r')) throw new Error(`blank line or carriage return: ${JSON.stringify(line)}`);
    if (line.startsWith('#')) {
      metadata(line, families, current, closed);
      continue;
    }
    const sample = parseSample(line);
    const family = familyOf(sample.name, families);
    if (family === undefined || family.type === '' || family.help === '') throw new Error(`sample before the HELP and TYPE of its family: ${line}`);
    if (family.name !== current.name) throw new Error(`sample of ${family.name} outside its family's group: ${line}`);
    const key = seriesKey(sample.name, sample.labels);
    if (seen.has(key)) throw new Error(`duplicate series ${key}`);
    seen.add(key);
    family.samples.push(sample);
  }
  for (const family of families.values()) {
    if (family.type === '' || family.help === '') throw new Error(`family ${family.name} lacks its HELP or TYPE`);
    checkFamily(family);
  }
  return families;
}

function groupBy(samples: readonly ParsedSample[], without: string): Map<string, ParsedSample[]> {
  const groups = new Map<string, ParsedSample[]>();
  for (const sample of samples) {
    const rest = { ...sample.labels };
    delete rest[without];
    const key = seriesKey('', rest);
    groups.set(key, [...(groups.get(key) ?? []), sample]);
  }
  return groups;
}

function checkHistogram(family: ParsedFamily): void {
  const { name } = family;
  for (const [labels, samples] of groupBy(family.samples, 'le')) {
    const buckets = samples.filter((s) => s.name === `${name}_bucket`);
    const sum = samples.filter((s) => s.name === `${name}_sum`);
    const count = samples.filter((s) => s.name === `${name}_count`);
    if (buckets.length === 0 || sum.length !== 1 || count.length !== 1) throw new Error(`${name}${labels}: needs buckets, one _sum and one _count`);
    let previousLe = -Infinity;
    let previousCount = 0;
    for (const bucket of buckets) {
      const le = parseValue(bucket.labels['le'] ?? 'missing');
      if (!(le > previousLe)) throw new Error(`${name}${labels}: le ${le} does not increase`);
      if (bucket.value < previousCount || !Number.isInteger(bucket.value)) throw new Error(`${name}${labels}: bucket counts are not cumulative`);
      previousLe = le;
      previousCount = bucket.value;
    }
    if (previousLe !== Infinity) throw new Error(`${name}${labels}: the last bucket is not +Inf`);
    if (count[0]?.value !== previousCount) throw new Error(`${name}${labels}: _count ${count[0]?.value} is not the +Inf bucket ${previousCount}`);
  }
  for (const sample of family.samples) {
    if ((sample.name === `${name}_bucket`) !== ('le' in sample.labels)) throw new Error(`${name}: le belongs on _bucket samples only`);
  }
}

function checkSummary(family: ParsedFamily): void {
  const { name } = family;
  for (const [labels, samples] of groupBy(family.samples, 'quantile')) {
    const sum = samples.filter((s) => s.name === `${name}_sum`);
    const count = samples.filter((s) => s.name === `${name}_count`);
    if (sum.length !== 1 || count.length !== 1) throw new Error(`${name}${labels}: needs one _sum and one _count`);
    if (!Number.isInteger(count[0]?.value) || (count[0]?.value ?? -1) < 0) throw new Error(`${name}${labels}: _count is not a count`);
    for (const sample of samples) {
      if ((sample.name === name) !== ('quantile' in sample.labels)) throw new Error(`${name}: quantile belongs on the ${name} samples only`);
      if (sample.name !== name) continue;
      const q = parseValue(sample.labels['quantile'] ?? 'missing');
      if (!(q >= 0 && q <= 1)) throw new Error(`${name}${labels}: quantile ${q} outside 0..1`);
    }
  }
}

/** The checks of one family's type: counters never negative, histograms and summaries complete. */
export function checkFamily(family: ParsedFamily): void {
  if (family.type === 'histogram') return checkHistogram(family);
  if (family.type === 'summary') return checkSummary(family);
  for (const sample of family.samples) {
    if (sample.name !== family.name) throw new Error(`${sample.name} is not a sample of ${family.type} ${family.name}`);
    if (family.type === 'counter' && !(sample.value >= 0)) throw new Error(`counter ${family.name} is ${sample.value}`);
  }
}

/** The value of the one series `name{labels}` (labels matched exactly), or undefined when absent. */
export function valueOf(families: Map<string, ParsedFamily>, name: string, labels: Readonly<Record<string, string>> = {}): number | undefined {
  const key = seriesKey(name, labels);
  const family = familyOf(name, families);
  return family?.samples.find((sample) => seriesKey(sample.name, sample.labels) === key)?.value;
}

/** Every sample of every family. */
export function allSamples(families: Map<string, ParsedFamily>): ParsedSample[] {
  return [...families.values()].flatMap((family) => family.samples);
}
