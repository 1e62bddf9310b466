import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseExposition, valueOf } from '../support/exposition.ts';

// The test parser must refuse what a scraper could misread, or the metrics tests prove nothing.

const VALID = [
  '# HELP http_requests_total Requests, with a \\\\ and a \\n in the help.',
  '# TYPE http_requests_total counter',
  'http_requests_total{method="GET",route="/api/products/{id}",status="200"} 3',
  'http_requests_total{method="GET",route="a \\"quoted\\\\ \\n one",status="404"} 1',
  '# HELP d Durations.',
  '# TYPE d histogram',
  'd_bucket{route="/x",le="0.1"} 1',
  'd_bucket{route="/x",le="1"} 2',
  'd_bucket{route="/x",le="+Inf"} 2',
  'd_sum{route="/x"} 0.6',
  'd_count{route="/x"} 2',
  '# HELP lag Lag.',
  '# TYPE lag summary',
  'lag{quantile="0.5"} NaN',
  'lag{quantile="1"} 1e-3',
  'lag_sum 0',
  'lag_count 0',
  '',
].join('\n');

test('a well-formed scrape parses, with escapes undone', () => {
  const families = parseExposition(VALID);
  assert.deepEqual([...families.keys()], ['http_requests_total', 'd', 'lag']);
  assert.equal(families.get('http_requests_total')?.help, 'Requests, with a \\ and a \n in the help.');
  assert.equal(valueOf(families, 'http_requests_total', { method: 'GET', route: 'a "quoted\\ \n one', status: '404' }), 1);
  assert.equal(valueOf(families, 'd_bucket', { route: '/x', le: '1' }), 2);
  assert.equal(valueOf(families, 'lag', { quantile: '1' }), 0.001);
});

/** VALID with one piece of text replaced. */
function variant(find: string, replacement: string): string {
  assert.ok(VALID.includes(find), find);
  return VALID.replace(find, replacement);
}

const BROKEN: [string, string, RegExp][] = [
  ['no final line feed', VALID.slice(0, -1), /line feed/],
  ['a blank line', variant('# HELP d Durations.', '\n# HELP d Durations.'), /blank line/],
  ['a sample before its TYPE', variant('# TYPE d histogram\n', '') + '# TYPE d histogram\n', /before the HELP and TYPE/],
  ['a family without HELP', variant('# HELP d Durations.\n', ''), /before the HELP and TYPE/],
  ['a second TYPE', variant('# TYPE d histogram', '# TYPE d histogram\n# TYPE d histogram'), /second TYPE/],
  ['an unknown TYPE', variant('# TYPE d histogram', '# TYPE d histo'), /bad TYPE/],
  ['a bad metric name', variant('lag_sum 0', '1lag_sum 0'), /bad metric name/],
  ['a bad label name', variant('d_sum{route="/x"} 0.6', 'd_sum{rou-te="/x"} 0.6'), /bad label name/],
  ['a reserved label name', variant('d_sum{route="/x"} 0.6', 'd_sum{__route="/x"} 0.6'), /bad label name/],
  ['an unquoted label value', variant('d_sum{route="/x"} 0.6', 'd_sum{route=/x} 0.6'), /not quoted/],
  ['an unknown escape', variant('d_sum{route="/x"} 0.6', 'd_sum{route="\\x"} 0.6'), /bad escape/],
  ['an unterminated label value', variant('d_sum{route="/x"} 0.6', 'd_sum{route="/x} 0.6'), /unterminated/],
  ['a label twice', variant('d_sum{route="/x"} 0.6', 'd_sum{route="/x",route="/y"} 0.6'), /twice/],
  ['a bad value', variant('lag_sum 0', 'lag_sum zero'), /bad value/],
  ['two spaces', variant('lag_sum 0', 'lag_sum  0'), /bad value/],
  ['a duplicate series', variant('lag_sum 0', 'lag_sum 0\nlag_sum 0'), /duplicate series/],
  ['le not increasing', variant('d_bucket{route="/x",le="1"} 2', 'd_bucket{route="/x",le="0.05"} 2'), /does not increase/],
  ['buckets not cumulative', variant('d_bucket{route="/x",le="1"} 2', 'd_bucket{route="/x",le="1"} 0'), /not cumulative/],
  ['no +Inf bucket', variant('d_bucket{route="/x",le="+Inf"} 2\n', ''), /not \+Inf/],
  ['+Inf not equal to _count', variant('d_count{route="/x"} 2', 'd_count{route="/x"} 3'), /is not the \+Inf bucket/],
  ['no _sum', variant('d_sum{route="/x"} 0.6\n', ''), /one _sum/],
  ['no _count', variant('lag_count 0\n', ''), /one _count/],
  ['le on _sum', variant('d_sum{route="/x"} 0.6', 'd_sum{route="/x",le="1"} 0.6'), /le belongs/],
  ['a quantile outside 0..1', variant('lag{quantile="1"} 1e-3', 'lag{quantile="1.5"} 1e-3'), /outside 0..1/],
  ['a negative counter', variant('status="200"} 3', 'status="200"} -3'), /is -3/],
  ['a family split in two', `${VALID}http_requests_total{method="POST",route="/",status="201"} 1\n`, /outside its family/],
  ['a sample of another family inside a group', variant('lag_sum 0', 'http_requests_total 1\nlag_sum 0'), /outside its family/],
];


for (const [what, text, reason] of BROKEN) {
  test(`the parser refuses ${what}`, () => {
    assert.throws(() => parseExposition(text), reason);
  });
}
