import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
// By name, as another project would (run `npm run build` first).
import { callbackMetric, createApp, createServiceMetrics, loadConfig, METRICS_CONTENT_TYPE, metricsRequestListener, type ServiceMetrics } from 'svc-http-sqlite';
import { type EmbeddedDatabase, openEmbeddedDatabase } from '../support/embedded-database.ts';
import { rawRequest } from '../support/raw-http.ts';
import { parseExposition, valueOf } from '../support/exposition.ts';
import { TEST_ENGINE } from '../support/test-engine.ts';

// A host that mounts the app on its own server and serves the app's metrics on a second listener.
let db: EmbeddedDatabase;
let metrics: ServiceMetrics;
let api: Server;
let scrapes: Server;
const urls = { api: '', metrics: '' };
const pool = { idle: 4, busy: 1 };

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

before(async () => {
  db = await openEmbeddedDatabase();
  await db.migrate();
  metrics = createServiceMetrics();
  // What a host's own storage layer with a pool would add: a gauge read at scrape time. (On
  // PostgreSQL the app adds db_pool_connections for its own pool; names must be unique.)
  metrics.registry.register(
    callbackMetric({
      type: 'gauge',
      name: 'host_pool_connections',
      help: 'Pool connections by state.',
      merge: 'sum',
      read: () => [{ labels: { state: 'idle' }, value: pool.idle }, { labels: { state: 'busy' }, value: pool.busy }],
    }),
  );
  const app = createApp({ db: db.db, config: loadConfig({ SVC_LOG_LEVEL: 'silent' }), metrics });
  assert.equal(app.metrics, metrics);
  api = createServer(app);
  scrapes = createServer(metricsRequestListener(() => metrics.text()));
  urls.api = await listen(api);
  urls.metrics = `${await listen(scrapes)}/metrics`;
});

after(async () => {
  for (const server of [api, scrapes]) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  metrics.close();
  await db.close();
});

test('an embedding host serves the app’s metrics on its own listener, with families of its own', async () => {
  for (let i = 0; i < 3; i++) await (await fetch(`${urls.api}/api/ping`)).arrayBuffer();
  pool.busy = 2;
  const response = await fetch(urls.metrics);
  assert.equal(response.headers.get('content-type'), METRICS_CONTENT_TYPE);
  const families = parseExposition(await response.text());
  assert.equal(valueOf(families, 'http_requests_total', { method: 'GET', route: '/api/ping', status: '200' }), 3);
  assert.equal(valueOf(families, 'host_pool_connections', { state: 'busy' }), 2);
  // The app's own pool on PostgreSQL, read at scrape time too: the pings left it idle.
  if (TEST_ENGINE === 'postgres') assert.deepEqual(['busy', 'waiting'].map((state) => valueOf(families, 'db_pool_connections', { state })), [0, 0]);
  else assert.equal(families.has('db_pool_connections'), false);
  assert.equal((await fetch(`${urls.metrics.replace('/metrics', '')}/other`)).status, 404);
});

test('the metrics listener serves an absolute-form target like its origin form', async () => {
  const { host } = new URL(urls.metrics);
  const answer = await rawRequest(urls.metrics, `GET http://${host}/metrics?x=1 HTTP/1.1\r\nHost: ${host}\r\nConnection: close`);
  assert.equal(answer.status, 200);
  assert.match(answer.body, /# TYPE http_requests_total counter/);
});
