import assert from 'node:assert/strict';
import { type AddressInfo, createServer } from 'node:net';
import { test } from 'node:test';
import { havePromtool, promtoolCheck } from '../support/promtool.ts';
import { scrape } from '../support/scrape.ts';
import { postJson } from '../support/server.ts';
import { createTestDatabase } from '../support/test-database.ts';
import { PRODUCT, type ServeProcess, spawnServe, urlOf } from './support.ts';

/** bin/serve.js with metrics on port 0; resolves with its API and metrics URLs once both listen. */
async function serveWithMetrics(t: { after(fn: () => Promise<void>): void }, env: Record<string, string> = {}): Promise<{ serve: ServeProcess; url: string; metricsUrl: string }> {
  const database = await createTestDatabase();
  const serve = spawnServe({ ...database.env, SVC_METRICS_PORT: '0', ...env });
  t.after(async () => {
    serve.kill();
    await serve.exited;
    await database.drop();
  });
  const url = await urlOf(serve);
  const line = await serve.waitForLine((l) => typeof l['metricsUrl'] === 'string');
  assert.equal(line['msg'], `metrics on ${String(line['metricsUrl'])}`);
  if (Number(env['SVC_WORKERS'] ?? 1) > 1) await serve.waitForLine(() => serve.lines.filter((l) => l['msg'] === 'worker listening').length === Number(env['SVC_WORKERS']));
  return { serve, url, metricsUrl: String(line['metricsUrl']) };
}

// Every kind of answer, so every family has samples: 201, 200, 404 known and unknown, 405, 415.
async function exercise(url: string): Promise<void> {
  const responses = [
    await postJson(`${url}/api/products`, PRODUCT, { 'idempotency-key': 'promtool-1' }),
    await postJson(`${url}/api/products`, PRODUCT, { 'idempotency-key': 'promtool-1' }),
    await fetch(`${url}/api/products/1`),
    await fetch(`${url}/api/products/77`),
    await fetch(`${url}/no/such/path`),
    await fetch(`${url}/api/ping`, { method: 'DELETE' }),
    await fetch(`${url}/api/products`, { method: 'POST', body: 'x' }),
  ];
  for (const response of responses) await response.arrayBuffer();
}

test('bin/serve.js logs the metrics URL; the scrape is loopback, strict 0.0.4, with the route patterns', async (t) => {
  const { url, metricsUrl } = await serveWithMetrics(t);
  assert.equal(new URL(metricsUrl).hostname, '127.0.0.1');
  await exercise(url);
  const s = await scrape(metricsUrl);
  assert.equal(s.value('http_requests_total', { method: 'GET', route: '/api/products/{id}', status: '404' }), 1);
  assert.equal(s.value('http_requests_total', { method: 'GET', route: '(unmatched)', status: '404' }), 1);
  assert.equal(s.value('http_requests_total', { method: 'POST', route: '/api/products', status: '415' }), 1);
  assert.equal(s.value('idempotent_replays_total'), 1);
});

for (const workers of ['1', '2']) {
  test(`promtool check metrics passes a real scrape (SVC_WORKERS=${workers})`, async (t) => {
    if (!havePromtool(t)) return;
    const { url, metricsUrl } = await serveWithMetrics(t, { SVC_WORKERS: workers });
    await exercise(url);
    const { text } = await scrape(metricsUrl);
    const result = promtoolCheck(text);
    assert.equal(result.status, 0, `promtool check metrics said:\n${result.output}`);
    assert.equal(result.output.trim(), '');
  });
}

test('a metrics port already taken stops serve before it serves, with one line saying why', async (t) => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.after(() => blocker.close());
  const port = String((blocker.address() as AddressInfo).port);
  for (const workers of ['1', '2']) {
    const database = await createTestDatabase();
    const serve = spawnServe({ ...database.env, SVC_METRICS_PORT: port, SVC_WORKERS: workers });
    t.after(async () => {
      serve.kill();
      await serve.exited;
      await database.drop();
    });
    assert.equal(await serve.exited, 1);
    assert.match(serve.stderr(), new RegExp(`^cannot start: listen EADDRINUSE.*127\\.0\\.0\\.1:${port}\\n$`));
    assert.equal(serve.lines.filter((line) => line['msg'] === 'worker started').length, 0);
  }
});
