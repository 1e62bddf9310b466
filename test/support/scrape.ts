import assert from 'node:assert/strict';
import { allSamples, type ParsedFamily, parseExposition, valueOf } from './exposition.ts';

/** One scrape, checked for status and media type, parsed strictly. */
export interface Scrape {
  text: string;
  families: Map<string, ParsedFamily>;
  /** The value of one series; a series that is missing fails the test (it is not read as 0). */
  value(name: string, labels?: Readonly<Record<string, string>>): number;
  /**
   * A counter's value before the requests a test counts: 0 when its series does not exist yet, as
   * a labelled series appears with its first increment. Only for such baselines; read results with value().
   */
  baseline(name: string, labels?: Readonly<Record<string, string>>): number;
  /** How many samples the scrape holds. */
  size: number;
}

/** GETs `metricsUrl` and parses the answer strictly (test/support/exposition.ts). */
export async function scrape(metricsUrl: string): Promise<Scrape> {
  const response = await fetch(metricsUrl);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  const text = await response.text();
  const families = parseExposition(text);
  return {
    text,
    families,
    value: (name, labels = {}) => {
      const value = valueOf(families, name, labels);
      assert.ok(value !== undefined, `no series ${name}${JSON.stringify(labels)} in the scrape`);
      return value;
    },
    baseline: (name, labels = {}) => valueOf(families, name, labels) ?? 0,
    size: allSamples(families).length,
  };
}
