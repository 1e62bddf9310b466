import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { scrape } from '../support/scrape.ts';
import { patchJson, postJson, startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let metricsUrl: string;
before(async () => {
  server = await startTestServer({ SVC_METRICS_PORT: '0' });
  assert.ok(server.metricsUrl !== null);
  metricsUrl = server.metricsUrl;
});
after(() => server.stop());

const TYPES = ['product.created', 'product.updated', 'product.deleted', 'workspace.created', 'workspace.updated', 'workspace.deleted'];

test('events_recorded_total{type} counts each committed event once, and nothing for writes that record none', async () => {
  const before = await scrape(metricsUrl);
  assert.equal(before.families.get('events_recorded_total')?.type, 'counter');
  for (const type of TYPES) assert.equal(before.value('events_recorded_total', { type }), 0, type);
  const product = (await (await postJson(`${server.url}/api/products`, { name: 'counted', priceInCents: 1 })).json()) as { id: number };
  const keyed = { 'idempotency-key': 'counted-once' };
  assert.equal((await postJson(`${server.url}/api/workspaces`, { name: 'w' }, keyed)).status, 201);
  assert.equal((await postJson(`${server.url}/api/workspaces`, { name: 'w' }, keyed)).status, 201, 'a replay');
  assert.equal((await patchJson(`${server.url}/api/products/${product.id}`, { priceInCents: 2 })).status, 200);
  assert.equal((await patchJson(`${server.url}/api/products/${product.id}`, { priceInCents: 2 })).status, 200, 'no change');
  assert.equal((await patchJson(`${server.url}/api/products/${product.id}`, { priceInCents: 3 }, { 'if-match': '"1"' })).status, 412);
  assert.equal((await postJson(`${server.url}/api/products`, { name: '' })).status, 422);
  assert.equal((await fetch(`${server.url}/api/products/${product.id}`, { method: 'DELETE' })).status, 204);
  assert.equal((await fetch(`${server.url}/api/products/${product.id}`, { method: 'DELETE' })).status, 404);
  const counted = await scrape(metricsUrl);
  assert.deepEqual(
    TYPES.map((type) => counted.value('events_recorded_total', { type })),
    [1, 1, 1, 1, 0, 0],
  );
});
