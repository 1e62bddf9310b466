import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { type Scrape, scrape } from '../support/scrape.ts';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';
import { TEST_ENGINE } from '../support/test-engine.ts';
import { PRODUCT, postHead, rawConnect } from './support.ts';

let server: TestServer;
let metricsUrl: string;
before(async () => {
  server = await startTestServer({ SVC_METRICS_PORT: '0' });
  assert.ok(server.metricsUrl !== null);
  metricsUrl = server.metricsUrl;
});
after(() => server.stop());

// PostgreSQL has no group commit to count (each write commits on a connection of its own): it
// reports its pool instead, and never the SQLite histogram.
// The deliverer's and the live feed's polls borrow a pooled connection for a moment now and then:
// the pool is at rest once a scrape finds none busy, which must come within a few seconds.
async function assertPoolAtRest(url: string): Promise<void> {
  let s = await scrape(url);
  for (let tries = 0; tries < 50 && s.value('db_pool_connections', { state: 'busy' }) !== 0; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    s = await scrape(url);
  }
  assert.equal(s.families.has('db_commit_batch_size'), false, 'no group commit on PostgreSQL');
  const pool = s.families.get('db_pool_connections');
  assert.equal(pool?.type, 'gauge');
  assert.deepEqual(pool?.samples.map((sample) => sample.labels['state']).sort(), ['busy', 'idle', 'waiting']);
  // Nothing busy, nobody waiting, and the connections the writes used kept for the next ones.
  assert.equal(s.value('db_pool_connections', { state: 'busy' }), 0);
  assert.equal(s.value('db_pool_connections', { state: 'waiting' }), 0);
  assert.ok(s.value('db_pool_connections', { state: 'idle' }) >= 1);
}

/** Sends one request with any method (fetch refuses some) and resolves with its status. */
function send(method: string, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, { method }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    })
      .on('error', reject)
      .end();
  });
}

describe('the metrics listener', () => {
  test('listens on loopback, on another port than the API', () => {
    const metrics = new URL(metricsUrl);
    assert.equal(metrics.hostname, '127.0.0.1');
    assert.equal(metrics.pathname, '/metrics');
    assert.notEqual(metrics.port, new URL(server.url).port);
  });

  test('answers GET and HEAD /metrics in the text format 0.0.4; a query string is ignored', async () => {
    const got = await fetch(metricsUrl);
    const body = await got.text();
    assert.equal(got.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    assert.equal(got.headers.get('cache-control'), 'no-store');
    const head = await fetch(metricsUrl, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    assert.equal(await head.text(), '');
    assert.ok(Number(head.headers.get('content-length')) > 1000);
    assert.match(body, /^# HELP /);
    assert.equal((await fetch(`${metricsUrl}?format=prometheus`)).status, 200);
  });

  test('answers 404 on every other path and 405 with Allow for other methods on /metrics', async () => {
    const origin = new URL(metricsUrl).origin;
    for (const path of ['/', '/metrics/', '/metricsx', '/Metrics', '/api/ping', '/api/products', '/metrics/extra']) {
      const response = await fetch(`${origin}${path}`);
      assert.equal(response.status, 404, path);
      assert.equal(await response.text(), 'Not Found\n');
    }
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const response = await fetch(metricsUrl, { method });
      assert.equal(response.status, 405, method);
      assert.equal(response.headers.get('allow'), 'GET, HEAD');
      await response.arrayBuffer();
    }
  });

  test('the API port has no /metrics: it is an unknown path there', async () => {
    const response = await fetch(`${server.url}/metrics`);
    assert.equal(response.status, 404);
    assert.equal(response.headers.get('content-type'), 'application/problem+json');
    await response.arrayBuffer();
  });
});

describe('request counting', () => {
  test('counters move by exactly the requests sent, under route patterns, never ids', async () => {
    const before = await scrape(metricsUrl);
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await postJson(`${server.url}/api/products`, PRODUCT);
      assert.equal(created.status, 201);
      ids.push(((await created.json()) as { id: number }).id);
    }
    for (const id of [...ids, ...ids]) assert.equal(await send('GET', `${server.url}/api/products/${id}`), 200);
    assert.equal(await send('GET', `${server.url}/api/products/999999`), 404);
    assert.equal(await send('HEAD', `${server.url}/api/products`), 200);
    assert.equal(await send('PUT', `${server.url}/api/products/${ids[0]}`), 405);
    const after = await scrape(metricsUrl);
    const delta = (labels: Record<string, string>): number => after.value('http_requests_total', labels) - before.baseline('http_requests_total', labels);
    assert.equal(delta({ method: 'POST', route: '/api/products', status: '201' }), 3);
    assert.equal(delta({ method: 'GET', route: '/api/products/{id}', status: '200' }), 6);
    assert.equal(delta({ method: 'GET', route: '/api/products/{id}', status: '404' }), 1);
    assert.equal(delta({ method: 'HEAD', route: '/api/products', status: '200' }), 1);
    assert.equal(delta({ method: 'PUT', route: '/api/products/{id}', status: '405' }), 1);
    const durations = { method: 'GET', route: '/api/products/{id}' };
    assert.equal(after.value('http_request_duration_seconds_count', durations) - before.baseline('http_request_duration_seconds_count', durations), 7);
    // Each create was committed, alone or with others: on SQLite the batch sizes add up to the creates.
    if (TEST_ENGINE === 'sqlite') assert.equal(after.value('db_commit_batch_size_sum') - before.value('db_commit_batch_size_sum'), 3);
    else await assertPoolAtRest(metricsUrl);
    assert.equal(after.value('http_requests_in_flight'), 0);
    const routes = new Set(after.families.get('http_requests_total')?.samples.map((s) => s.labels['route']));
    const patterns = new Set([...server.app.routes.map((r) => r.pattern), '(unmatched)']);
    for (const route of routes) assert.ok(patterns.has(route ?? ''), `route label ${route} is a pattern`);
  });

  test('thousands of random unknown paths and methods add no series', async () => {
    const methods = ['GET', 'POST', 'DELETE', 'PROPFIND', 'PURGE', 'MKCOL'];
    // One of each first, so the series exist before counting them.
    for (const method of methods) assert.equal(await send(method, `${server.url}/first-${method}`), 404);
    const before = await scrape(metricsUrl);
    const paths = Array.from({ length: 3000 }, (_, i) => {
      const random = Math.random().toString(36).slice(2);
      return [`/${random}`, `/api/${random}`, `/api/products/${i}/${random}`, `/api/${random}/${i}`][i % 4];
    });
    for (let i = 0; i < paths.length; i += 50) {
      const statuses = await Promise.all(paths.slice(i, i + 50).map((path, j) => send(methods[(i + j) % methods.length] ?? 'GET', `${server.url}${path}`)));
      assert.ok(statuses.every((status) => status === 404));
    }
    const after = await scrape(metricsUrl);
    assert.equal(after.size, before.size);
    const unmatched = (s: typeof after, method: string): number => s.value('http_requests_total', { method, route: '(unmatched)', status: '404' });
    assert.equal(unmatched(after, 'GET') - unmatched(before, 'GET'), 500);
    // PROPFIND, PURGE and MKCOL share one label value.
    assert.equal(unmatched(after, 'other') - unmatched(before, 'other'), 1500);
  });

  test('a request still being received is in flight', async () => {
    const connection = await rawConnect(server.url);
    const body = JSON.stringify(PRODUCT);
    connection.socket.write(postHead('/api/products', Buffer.byteLength(body)) + body.slice(0, 5));
    // The head has been parsed once the app is waiting for the body.
    for (let i = 0; i < 100 && (await scrape(metricsUrl)).value('http_requests_in_flight') === 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal((await scrape(metricsUrl)).value('http_requests_in_flight'), 1);
    connection.socket.write(body.slice(5));
    assert.equal((await connection.next()).status, 201);
    connection.socket.destroy();
    assert.equal((await scrape(metricsUrl)).value('http_requests_in_flight'), 0);
  });

  test('process figures are present and plausible', async () => {
    const now = Date.now() / 1000;
    const s = await scrape(metricsUrl);
    const start = s.value('process_start_time_seconds');
    assert.ok(start > now - 3600 && start <= now, `start time ${start}`);
    assert.ok(s.value('process_resident_memory_bytes') > 10 * 1024 * 1024);
    assert.ok(s.value('process_cpu_seconds_total') > 0);
    assert.ok(Math.abs(s.value('process_cpu_seconds_total') - s.value('process_cpu_user_seconds_total') - s.value('process_cpu_system_seconds_total')) < 0.01);
    // This process holds at least the two listening sockets, the database and its WAL.
    if (process.platform === 'linux') assert.ok(s.value('process_open_fds') >= 4);
    assert.equal(s.families.get('nodejs_eventloop_lag_seconds')?.type, 'summary');
  });
});

test('idempotent replays and rate-limited requests are counted', async (t) => {
  const limited = await startTestServer({ SVC_METRICS_PORT: '0', SVC_RATE_LIMIT: '4' });
  t.after(() => limited.stop());
  const url = limited.metricsUrl ?? '';
  const key = { 'idempotency-key': 'metrics-replay-1' };
  for (const replayed of [null, 'true']) {
    const response = await postJson(`${limited.url}/api/products`, PRODUCT, key);
    assert.equal(response.headers.get('idempotent-replayed'), replayed);
    await response.arrayBuffer();
  }
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push(await send('GET', `${limited.url}/api/products`));
  assert.deepEqual(statuses, [200, 200, 429, 429]);
  // Readiness is never limited, so it never counts as limited either.
  assert.equal(await send('GET', `${limited.url}/api/ping`), 200);
  const s = await scrape(url);
  assert.equal(s.value('idempotent_replays_total'), 1);
  assert.equal(s.value('rate_limited_total'), 2);
  assert.equal(s.value('http_requests_total', { method: 'GET', route: '/api/products', status: '429' }), 2);
  // The create and the replay each went through a write transaction (a keyed retry is looked up
  // inside it, so it cannot race another process's create): on SQLite two batches.
  if (TEST_ENGINE === 'sqlite') assert.equal(s.value('db_commit_batch_size_count'), 2);
  else await assertPoolAtRest(url);
});

test('without SVC_METRICS_PORT nothing listens and nothing is counted', async (t) => {
  const plain = await startTestServer();
  t.after(() => plain.stop());
  assert.equal(plain.metricsUrl, null);
  assert.equal(plain.app.metrics, null);
});

test('graceful shutdown closes the metrics listener', async () => {
  const closing = await startTestServer({ SVC_METRICS_PORT: '0' });
  const url = closing.metricsUrl ?? '';
  assert.equal((await fetch(url)).status, 200);
  await closing.stop();
  await assert.rejects(fetch(url));
});
