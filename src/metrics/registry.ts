import { type FamilySnapshot, labelText, type MergeRule, renderExposition, type ScalarSeries } from './exposition.ts';

/** Anything that reports one metric family when scraped. */
export interface Collector {
  readonly name: string;
  /** The family as it is now, or null when this process cannot measure it (e.g. no /proc). */
  snapshot(): FamilySnapshot | null;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

/** The metric families of one process, in the order registered; names are unique. */
export class Registry {
  readonly #collectors: Collector[] = [];
  readonly #names = new Set<string>();

  /** Adds a collector; a second family of the same name, or a malformed name, is a programming error. */
  register<C extends Collector>(collector: C): C {
    if (!METRIC_NAME.test(collector.name)) throw new Error(`invalid metric name ${JSON.stringify(collector.name)}`);
    if (this.#names.has(collector.name)) throw new Error(`metric ${collector.name} is already registered`);
    this.#names.add(collector.name);
    this.#collectors.push(collector);
    return collector;
  }

  /** Removes the family of that name (one this process turns out not to measure); false when there is none. */
  unregister(name: string): boolean {
    if (!this.#names.delete(name)) return false;
    this.#collectors.splice(this.#collectors.findIndex((collector) => collector.name === name), 1);
    return true;
  }

  /** Every family as it is now. */
  snapshot(): FamilySnapshot[] {
    const families: FamilySnapshot[] = [];
    for (const collector of this.#collectors) {
      const family = collector.snapshot();
      if (family !== null) families.push(family);
    }
    return families;
  }

  /** One scrape in the text exposition format 0.0.4. */
  text(): string {
    return renderExposition(this.snapshot());
  }
}

/** One sample a callback reports: its labels (none by default) and value. */
export interface Sample {
  labels?: Readonly<Record<string, string>>;
  value: number;
}

/** How a callback metric is described and combined across workers. */
export interface CallbackMetricSpec {
  type: 'counter' | 'gauge';
  name: string;
  help: string;
  /** How the primary combines workers' values: `sum` for totals (in flight, memory), `min`/`max` otherwise. */
  merge: MergeRule;
  /** Read at scrape time: one value, a list of labelled samples, or null when unavailable. */
  read(): number | readonly Sample[] | null;
}

/** A counter or gauge whose value is read when scraped (process figures, a connection pool's state). */
export function callbackMetric(spec: CallbackMetricSpec): Collector {
  const { type, name, help, merge } = spec;
  return {
    name,
    snapshot() {
      const read = spec.read();
      if (read === null) return null;
      const series: ScalarSeries[] =
        typeof read === 'number' ? [{ labels: '', value: read }] : read.map((sample) => ({ labels: labelText(sample.labels ?? {}), value: sample.value }));
      return { type, name, help, merge, series };
    },
  };
}
