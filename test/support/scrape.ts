import assert from 'node:assert/strict';
import { allSamples, type ParsedFamily, parseExposition, valueOf } from './exposition.ts';

/** One scrape, checked for status and media type, parsed strictly. */
export interface Scrape {
  text: string;
  families: Map<string, ParsedFamily>;
  /** The value of one series, 0 when the series does not exist yet. */
  value(name: string, labels?: Readonly<Record<string, string>>): number;
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
    value: (name, labels = {}) => valueOf(families, name, labels) ?? 0,
    size: allSamples(families).length,
  };
}
