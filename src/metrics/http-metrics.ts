import { escapeLabelValue, type FamilySnapshot, type HistogramSeries, type ScalarSeries } from './exposition.ts';
import { checkBounds, HistogramCells } from './instruments.ts';
import type { Collector } from './registry.ts';

/** The `route` label of requests that match no route (404 unknown path): braces-free, so never a pattern. */
export const UNMATCHED_ROUTE = '(unmatched)';

// Methods with their own label value; node:http parses some 30 others (WebDAV, …), all `other`,
// so a client cannot add series by inventing methods.
const KNOWN_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Request durations in seconds. Answers take 0.1–50 ms here (ping ~0.1 ms, a durable create one
 * fsync, 1–10 ms; a list page under load tens of ms), so the 1-2.5-5 steps start at 0.1 ms, where
 * Prometheus' defaults (5 ms upwards) would put nearly every request in the first bucket; 0.25 s,
 * 1 s and 5 s still tell a slow request from one that waited out the 5 s write lock.
 */
export const DURATION_BOUNDS: readonly number[] = checkBounds([0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5]);

// node:http accepts status codes 100..999 only.
const STATUS_MIN = 100;
const STATUS_SLOTS = 900;

/** The counters of one (method, route) pair, resolved once and then reused by every request. */
class RouteChild {
  readonly labels: string;
  readonly statuses = new Float64Array(STATUS_SLOTS);
  readonly duration = new HistogramCells(DURATION_BOUNDS);

  constructor(method: string, route: string) {
    this.labels = `method="${method}",route="${escapeLabelValue(route)}"`;
  }
}

/** `http_requests_total`, `http_request_duration_seconds` and `http_requests_in_flight`, counted per request. */
export class HttpMetrics {
  #inFlight = 0;
  // route → raw method → child. Both keys are bounded: patterns come from the router, methods from
  // node:http's parser; several raw methods share the `other` child.
  readonly #routes = new Map<string, Map<string, RouteChild>>();
  readonly #children = new Map<string, RouteChild>();

  /** A request arrived. */
  started(): void {
    this.#inFlight++;
  }

  /** A request was answered; `route` is its pattern or UNMATCHED_ROUTE, `startedAt` from performance.now(). */
  finished(method: string, route: string, status: number, startedAt: number): void {
    this.#inFlight--;
    const child = this.#routes.get(route)?.get(method) ?? this.#childOf(method, route);
    const slot = status - STATUS_MIN;
    if (slot >= 0 && slot < STATUS_SLOTS) child.statuses[slot] = (child.statuses[slot] as number) + 1;
    child.duration.observe((performance.now() - startedAt) / 1000);
  }

  // The slow path, once per (route, raw method): find or make the child of its label values.
  #childOf(method: string, route: string): RouteChild {
    const label = KNOWN_METHODS.has(method) ? method : 'other';
    const key = `${label} ${route}`;
    let child = this.#children.get(key);
    if (child === undefined) {
      child = new RouteChild(label, route);
      this.#children.set(key, child);
    }
    let byMethod = this.#routes.get(route);
    if (byMethod === undefined) {
      byMethod = new Map();
      this.#routes.set(route, byMethod);
    }
    byMethod.set(method, child);
    return child;
  }

  /** The three families, for a registry. */
  collectors(): Collector[] {
    return [
      { name: 'http_requests_total', snapshot: () => this.#requests() },
      { name: 'http_request_duration_seconds', snapshot: () => this.#durations() },
      {
        name: 'http_requests_in_flight',
        snapshot: (): FamilySnapshot => ({
          type: 'gauge',
          name: 'http_requests_in_flight',
          help: 'Requests being handled now.',
          merge: 'sum',
          series: [{ labels: '', value: this.#inFlight }],
        }),
      },
    ];
  }

  #requests(): FamilySnapshot {
    const series: ScalarSeries[] = [];
    for (const child of this.#children.values()) {
      child.statuses.forEach((value, slot) => {
        if (value > 0) series.push({ labels: `${child.labels},status="${slot + STATUS_MIN}"`, value });
      });
    }
    return { type: 'counter', name: 'http_requests_total', help: 'Requests answered, by method, route pattern and status.', merge: 'sum', series };
  }

  #durations(): FamilySnapshot {
    const series: HistogramSeries[] = [];
    for (const child of this.#children.values()) series.push(child.duration.series(child.labels));
    return {
      type: 'histogram',
      name: 'http_request_duration_seconds',
      help: 'Time from the request reaching the app to its answer being written, by method and route pattern.',
      bounds: DURATION_BOUNDS,
      series,
    };
  }
}
