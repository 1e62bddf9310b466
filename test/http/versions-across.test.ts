import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { VERSIONS } from '../../src/registry.ts';
import { followUntil } from '../support/events.ts';
import { scrape } from '../support/scrape.ts';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

// What follows the version besides a resource's own answers (docs/versions.md), with products as the
// sample: the feed's page and its tag, idempotent replays, and the count of requests by version.

const IDS = VERSIONS.map((spec) => spec.version);
const FIRST = IDS[0] ?? '';
const NEWEST = IDS.at(-1) ?? '';
type Event = { id: string; type: string; data: Record<string, unknown> };

let server: TestServer;
before(async () => {
  server = await startTestServer({ SVC_METRICS_PORT: '0' });
});
after(() => server.stop());

test('the feed from 2026-11-28 on says hasMore, and its tag tells versions and hasMore apart', async () => {
  for (let n = 0; n < 3; n++) assert.equal((await postJson(`${server.url}/api/products`, { name: `p${n}`, priceInCents: n })).status, 201);
  const read = async (version: string, limit: number): Promise<{ tag: string; page: unknown }> => {
    const response = await fetch(`${server.url}/api/events?type=product.created&limit=${limit}`, { headers: { 'api-version': version } });
    return { tag: String(response.headers.get('etag')), page: await response.json() };
  };
  await followUntil(server.url, '/api/events?type=product.created', (seen) => seen.length >= 3);
  const short = await read(NEWEST, 2);
  assert.equal((short.page as { hasMore: boolean }).hasMore, true);
  const whole = await read(NEWEST, 200);
  assert.equal((whole.page as { hasMore: boolean }).hasMore, false);
  const old = await read(FIRST, 2);
  assert.ok(Array.isArray(old.page));
  assert.equal(new Set([short.tag, old.tag]).size, 2, 'the same events in another version have another tag');
  assert.equal((await fetch(`${server.url}/api/events?type=product.created&limit=2`, { headers: { 'api-version': FIRST, 'if-none-match': short.tag } })).status, 200);
  assert.equal((await fetch(`${server.url}/api/events?type=product.created&limit=2`, { headers: { 'api-version': NEWEST, 'if-none-match': short.tag } })).status, 304);
});

test('an Idempotency-Key replays in its version, and the same key in another version is 422 idempotency_key_reused', async () => {
  const key = { 'idempotency-key': 'versioned-1' };
  // A body both versions take alike: the same request but for its version.
  const SECOND = IDS[1] ?? '';
  const body = { name: 'Once', priceInCents: 1 };
  const first = await postJson(`${server.url}/api/products`, body, { ...key, 'api-version': SECOND });
  const replay = await postJson(`${server.url}/api/products`, body, { ...key, 'api-version': SECOND });
  assert.deepEqual([first.status, replay.status, replay.headers.get('idempotent-replayed'), replay.headers.get('api-version')], [201, 201, 'true', SECOND]);
  assert.equal(await replay.text(), await first.text());
  const other = await postJson(`${server.url}/api/products`, body, key);
  assert.equal(other.status, 422);
  assert.equal(((await other.json()) as { code: string }).code, 'idempotency_key_reused');
});

test('api_requests_total counts requests by the version they were made in, a refused one as unsupported, never its raw value', async () => {
  assert.ok(server.metricsUrl !== null);
  const before = await scrape(server.metricsUrl);
  await fetch(`${server.url}/api/ping`);
  await fetch(`${server.url}/api/ping`, { headers: { 'api-version': NEWEST } });
  await fetch(`${server.url}/api/ping`, { headers: { 'api-version': 'not-a-version' } });
  await fetch(`${server.url}/not-api`);
  const after = await scrape(server.metricsUrl);
  const delta = (version: string): number => after.value('api_requests_total', { version }) - before.baseline('api_requests_total', { version });
  assert.deepEqual([delta(FIRST), delta(NEWEST), delta('unsupported')], [1, 1, 1]);
  assert.ok(!after.text.includes('not-a-version'));
});
