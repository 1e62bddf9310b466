import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cumulativePart, mergeSnapshots } from '../../src/metrics/aggregate.ts';
import { type FamilySnapshot, renderExposition } from '../../src/metrics/exposition.ts';
import { HttpMetrics, UNMATCHED_ROUTE } from '../../src/metrics/http-metrics.ts';
import { Counter, Histogram } from '../../src/metrics/instruments.ts';
import { callbackMetric, Registry } from '../../src/metrics/registry.ts';
import { createServiceMetrics } from '../../src/metrics/service-metrics.ts';
import { parseExposition, valueOf } from '../support/exposition.ts';

test('a histogram counts a value equal to a bound in that bound’s bucket, cumulatively', () => {
  const registry = new Registry();
  const histogram = registry.register(new Histogram('size', 'Sizes.', [1, 2, 4]));
  for (const value of [1, 2, 2, 3, 5]) histogram.observe(value);
  const families = parseExposition(registry.text());
  assert.deepEqual(['1', '2', '4', '+Inf'].map((le) => valueOf(families, 'size_bucket', { le })), [1, 3, 4, 5]);
  assert.equal(valueOf(families, 'size_sum'), 13);
  assert.equal(valueOf(families, 'size_count'), 5);
});

test('bounds that do not increase are refused', () => {
  assert.throws(() => new Histogram('h', 'H.', [1, 1]), /increasing/);
  assert.throws(() => new Histogram('h', 'H.', [1, Infinity]), /finite/);
});

test('a registry refuses a second family of the same name and malformed names', () => {
  const registry = new Registry();
  registry.register(new Counter('a_total', 'A.'));
  assert.throws(() => registry.register(new Counter('a_total', 'A again.')), /already registered/);
  assert.throws(() => registry.register(new Counter('a-total', 'Dash.')), /invalid metric name/);
});

test('a registry drops an unregistered family from scrapes and frees its name', () => {
  const registry = new Registry();
  registry.register(new Counter('kept_total', 'Kept.'));
  registry.register(new Histogram('dropped', 'Dropped.', [1]));
  assert.equal(registry.unregister('dropped'), true);
  assert.equal(registry.unregister('dropped'), false);
  assert.deepEqual([...parseExposition(registry.text()).keys()], ['kept_total']);
  registry.register(new Counter('dropped', 'Registered again.'));
  assert.deepEqual([...parseExposition(registry.text()).keys()], ['kept_total', 'dropped']);
});

test('a callback metric is read at scrape time, with escaped labels, and is absent when it reports null', () => {
  const registry = new Registry();
  const pool = { idle: 3, busy: 1 };
  let available = true;
  registry.register(
    callbackMetric({
      type: 'gauge',
      name: 'db_pool_connections',
      help: 'Pool connections by state.',
      merge: 'sum',
      read: () => (available ? [{ labels: { state: 'idle' }, value: pool.idle }, { labels: { state: 'busy "now"\n' }, value: pool.busy }] : null),
    }),
  );
  pool.idle = 5;
  const families = parseExposition(registry.text());
  assert.equal(valueOf(families, 'db_pool_connections', { state: 'idle' }), 5);
  assert.equal(valueOf(families, 'db_pool_connections', { state: 'busy "now"\n' }), 1);
  available = false;
  assert.equal(registry.text(), '');
});

test('HTTP metrics: one series per method, pattern and status; unknown methods are `other`', () => {
  const http = new HttpMetrics();
  const registry = new Registry();
  for (const collector of http.collectors()) registry.register(collector);
  const t0 = performance.now();
  for (const [method, route, status] of [
    ['GET', '/api/products/{id}', 200], ['GET', '/api/products/{id}', 200], ['GET', '/api/products/{id}', 404],
    ['PROPFIND', UNMATCHED_ROUTE, 404], ['MKCOL', UNMATCHED_ROUTE, 404], ['HEAD', '/api/ping', 200],
  ] as const) {
    http.started();
    http.finished(method, route, status, t0);
  }
  http.started();
  const families = parseExposition(registry.text());
  assert.equal(valueOf(families, 'http_requests_total', { method: 'GET', route: '/api/products/{id}', status: '200' }), 2);
  assert.equal(valueOf(families, 'http_requests_total', { method: 'other', route: '(unmatched)', status: '404' }), 2);
  assert.equal(valueOf(families, 'http_request_duration_seconds_count', { method: 'GET', route: '/api/products/{id}' }), 3);
  assert.equal(valueOf(families, 'http_request_duration_seconds_count', { method: 'HEAD', route: '/api/ping' }), 1);
  assert.equal(valueOf(families, 'http_requests_in_flight'), 1);
  assert.equal(families.get('http_requests_total')?.samples.length, 4);
});

const gauge = (name: string, merge: 'sum' | 'min' | 'max', value: number): FamilySnapshot => ({ type: 'gauge', name, help: 'G.', merge, series: [{ labels: '', value }] });

function processSnapshot(requests: number, memory: number, start: number, p99: number): FamilySnapshot[] {
  return [
    { type: 'counter', name: 'req_total', help: 'R.', merge: 'sum', series: [{ labels: 'route="/a"', value: requests }] },
    { type: 'histogram', name: 'd', help: 'D.', bounds: [0.1, 1], series: [{ labels: 'route="/a"', counts: [requests, 1, 0], sum: requests * 0.05 + 0.5 }] },
    gauge('mem', 'sum', memory),
    gauge('start', 'min', start),
    { type: 'summary', name: 'lag', help: 'L.', quantiles: [0.5, 0.99], series: [{ labels: '', values: [p99 / 2, p99], sum: p99, count: 10 }] },
  ];
}

test('merging sums counters, histograms and summed gauges, takes min/max where asked, and the highest quantile', () => {
  // Sent over IPC as JSON, so a NaN quantile arrives as null.
  const worker = JSON.parse(JSON.stringify(processSnapshot(5, 100, 20, NaN))) as FamilySnapshot[];
  const merged = mergeSnapshots([processSnapshot(3, 50, 10, 0.002), worker, processSnapshot(1, 7, 30, 0.004)]);
  const families = parseExposition(renderExposition(merged));
  assert.equal(valueOf(families, 'req_total', { route: '/a' }), 9);
  assert.equal(valueOf(families, 'd_bucket', { route: '/a', le: '0.1' }), 9);
  assert.equal(valueOf(families, 'd_count', { route: '/a' }), 12);
  assert.equal(valueOf(families, 'mem'), 157);
  assert.equal(valueOf(families, 'start'), 10);
  assert.equal(valueOf(families, 'lag', { quantile: '0.99' }), 0.004);
  assert.equal(valueOf(families, 'lag_count'), 30);
});

test('merging keeps series that only one process has, and skips a histogram with other bounds', () => {
  const a: FamilySnapshot[] = [{ type: 'counter', name: 'c_total', help: 'C.', merge: 'sum', series: [{ labels: 'x="1"', value: 1 }] }];
  const b: FamilySnapshot[] = [{ type: 'counter', name: 'c_total', help: 'C.', merge: 'sum', series: [{ labels: 'x="2"', value: 2 }] }];
  const h = (bounds: number[]): FamilySnapshot[] => [{ type: 'histogram', name: 'h', help: 'H.', bounds, series: [{ labels: '', counts: bounds.map(() => 1).concat(1), sum: 1 }] }];
  const families = parseExposition(renderExposition(mergeSnapshots([a, b, h([1]), h([1, 2])])));
  assert.equal(valueOf(families, 'c_total', { x: '1' }), 1);
  assert.equal(valueOf(families, 'c_total', { x: '2' }), 2);
  assert.equal(valueOf(families, 'h_count'), 2);
});

test('the cumulative part of a process drops gauges and quantile values, keeps counters, histograms and summary totals', () => {
  const kept = cumulativePart(processSnapshot(4, 100, 20, 0.003));
  assert.deepEqual(kept.map((family) => family.name), ['req_total', 'd', 'lag']);
  const families = parseExposition(renderExposition(kept));
  assert.ok(Number.isNaN(valueOf(families, 'lag', { quantile: '0.99' })));
  assert.equal(valueOf(families, 'lag_count'), 10);
});

test('the service metrics render every family the contract names, strictly parseable', (t) => {
  const metrics = createServiceMetrics();
  t.after(() => metrics.close());
  metrics.commitBatchSize.observe(3);
  metrics.idempotentReplays.inc();
  const families = parseExposition(metrics.text());
  for (const name of [
    'http_requests_total', 'http_request_duration_seconds', 'http_requests_in_flight', 'db_commit_batch_size',
    'idempotent_replays_total', 'rate_limited_total', 'process_cpu_seconds_total', 'process_cpu_user_seconds_total',
    'process_cpu_system_seconds_total', 'process_resident_memory_bytes', 'process_start_time_seconds', 'nodejs_eventloop_lag_seconds',
  ]) {
    assert.ok(families.has(name), name);
  }
  assert.equal(valueOf(families, 'db_commit_batch_size_bucket', { le: '4' }), 1);
  assert.equal(valueOf(families, 'db_commit_batch_size_bucket', { le: '2' }), 0);
  assert.equal(valueOf(families, 'idempotent_replays_total'), 1);
  assert.equal(valueOf(families, 'rate_limited_total'), 0);
});
