import type { FamilySnapshot, HistogramSeries, LabelText } from './exposition.ts';
import type { Collector } from './registry.ts';

/** Per-bucket counts and a sum for one histogram series; bucket search is a short linear scan. */
export class HistogramCells {
  readonly #bounds: readonly number[];
  readonly #counts: Float64Array;
  #sum = 0;

  constructor(bounds: readonly number[]) {
    this.#bounds = bounds;
    this.#counts = new Float64Array(bounds.length + 1);
  }

  /** Counts `value` in the first bucket whose upper bound is at least `value` (+Inf past the last). */
  observe(value: number): void {
    const bounds = this.#bounds;
    let i = 0;
    // Most observations land in the first few buckets, so scanning from the bottom beats bisection.
    while (i < bounds.length && value > (bounds[i] as number)) i++;
    this.#counts[i] = (this.#counts[i] as number) + 1;
    this.#sum += value;
  }

  /** How many values were observed. */
  count(): number {
    let total = 0;
    for (const n of this.#counts) total += n;
    return total;
  }

  series(labels: LabelText): HistogramSeries {
    return { labels, counts: Array.from(this.#counts), sum: this.#sum };
  }
}

/** Checks histogram bounds once: finite and strictly increasing, as `le` must be. */
export function checkBounds(bounds: readonly number[]): readonly number[] {
  bounds.forEach((bound, i) => {
    if (!Number.isFinite(bound) || (i > 0 && bound <= (bounds[i - 1] as number))) throw new Error('histogram bounds must be finite and increasing');
  });
  return Object.freeze([...bounds]);
}

/** A histogram without labels. */
export class Histogram implements Collector {
  readonly name: string;
  readonly #help: string;
  readonly #bounds: readonly number[];
  readonly #cells: HistogramCells;

  constructor(name: string, help: string, bounds: readonly number[]) {
    this.name = name;
    this.#help = help;
    this.#bounds = checkBounds(bounds);
    this.#cells = new HistogramCells(this.#bounds);
  }

  observe(value: number): void {
    this.#cells.observe(value);
  }

  snapshot(): FamilySnapshot {
    return { type: 'histogram', name: this.name, help: this.#help, bounds: this.#bounds, series: [this.#cells.series('')] };
  }
}

/** A counter without labels. */
export class Counter implements Collector {
  readonly name: string;
  readonly #help: string;
  #value = 0;

  constructor(name: string, help: string) {
    this.name = name;
    this.#help = help;
  }

  inc(by = 1): void {
    this.#value += by;
  }

  snapshot(): FamilySnapshot {
    return { type: 'counter', name: this.name, help: this.#help, merge: 'sum', series: [{ labels: '', value: this.#value }] };
  }
}

/** A counter with one label whose values are fixed up front (each reported from 0), so no request can add a series. */
export class EnumCounter<V extends string> implements Collector {
  readonly name: string;
  readonly #help: string;
  readonly #label: string;
  readonly #counts: Map<V, number>;

  constructor(name: string, help: string, label: string, values: readonly V[]) {
    this.name = name;
    this.#help = help;
    this.#label = label;
    this.#counts = new Map(values.map((value) => [value, 0]));
  }

  /** Counts one of `value`; a value outside the fixed set is a programming error. */
  inc(value: V): void {
    const count = this.#counts.get(value);
    if (count === undefined) throw new Error(`${this.name}: ${value} is not one of its ${this.#label} values`);
    this.#counts.set(value, count + 1);
  }

  snapshot(): FamilySnapshot {
    const series = [...this.#counts].map(([value, count]) => ({ labels: `${this.#label}="${value}"`, value: count }));
    return { type: 'counter', name: this.name, help: this.#help, merge: 'sum', series };
  }
}
