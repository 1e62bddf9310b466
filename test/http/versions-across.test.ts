import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { VERSIONS } from '../../src/registry.ts';
import { followUntil } from '../support/events.ts';
import { scrape } from '../support/scrape.ts';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

// What follows the version besides a resource's own answers (docs/versions.md): one event read in
// every version, the feed's page and its tag, idempotent replays, and the count of requests by version.

const IDS = VERSIONS.map((spec) => spec.version);
const FIRST = IDS[0] ?? '';
const NEWEST = IDS.at(-1) ?? '';
type Event = { id: string; type: string; data: Record<string, unknown> };

let server: TestServer;
before(async () => {
  server = await startTestServer({ SVC_METRICS_PORT: '0' });
});
after(() => server.stop());

test('one event read in every version: the same id, type and time; its data as that version shows the product', async () => {
  const made = await postJson(`${server.url}/api/products`, { name: 'Evented', price: { amount: 42, currency: 'SEK' } }, { 'api-version': NEWEST });
  const { id } = (await made.json()) as { id: number };
  await followUntil(server.url, '/api/events', (seen) => seen.some((event) => event.data['id'] === id));
  const read = async (version: string): Promise<{ event: Event | undefined; listed: boolean }> => {
    const page = (await (await fetch(`${server.url}/api/events?type=product.created&limit=200`, { headers: { 'api-version': version } })).json()) as Event[] | { data: Event[] };
    return { event: (Array.isArray(page) ? page : page.data).find((event) => event.data['id'] === id), listed: Array.isArray(page) };
  };
  const events = await Promise.all(IDS.map(read));
  events.forEach(({ listed }, i) => assert.equal(listed, i === 0, `${IDS[i]}: the feed's page is an array only in the first version`));
  const [first, second, newest] = events.map(({ event }) => event);
  assert.ok(first !== undefined && second !== undefined && newest !== undefined);
  assert.deepEqual([second.id, second.type, newest.id, newest.type], [first.id, first.type, first.id, first.type]);
  assert.equal(first.data['priceInCents'], 42);
  assert.deepEqual(second.data, first.data);
  assert.deepEqual(newest.data['price'], { amount: 42, currency: 'SEK' });
});

test('the feed from 2026-11-28 on says hasMore, and its tag tells versions and hasMore apart', async () => {
  for (let n = 0; n < 3; n++) assert.equal((await postJson(`${server.url}/api/workspaces`, { name: `w${n}` })).status, 201);
  const read = async (version: string, limit: number): Promise<{ tag: string; page: unknown }> => {
    const response = await fetch(`${server.url}/api/events?type=workspace.created&limit=${limit}`, { headers: { 'api-version': version } });
    return { tag: String(response.headers.get('etag')), page: await response.json() };
  };
  await followUntil(server.url, '/api/events?type=workspace.created', (seen) => seen.length >= 3);
  const short = await read(NEWEST, 2);
  assert.equal((short.page as { hasMore: boolean }).hasMore, true);
  const whole = await read(NEWEST, 200);
  assert.equal((whole.page as { hasMore: boolean }).hasMore, false);
  const old = await read(FIRST, 2);
  assert.ok(Array.isArray(old.page));
  assert.equal(new Set([short.tag, old.tag]).size, 2, 'the same events in another version have another tag');
  assert.equal((await fetch(`${server.url}/api/events?type=workspace.created&limit=2`, { headers: { 'api-version': FIRST, 'if-none-match': short.tag } })).status, 200);
  assert.equal((await fetch(`${server.url}/api/events?type=workspace.created&limit=2`, { headers: { 'api-version': NEWEST, 'if-none-match': short.tag } })).status, 304);
});

test('an Idempotency-Key replays in its version, and the same key in another version is 422 idempotency_key_reused', async () => {
  const key = { 'idempotency-key': 'versioned-1' };
  const body = { name: 'Once' };
  const first = await postJson(`${server.url}/api/workspaces`, body, { ...key, 'api-version': NEWEST });
  const replay = await postJson(`${server.url}/api/workspaces`, body, { ...key, 'api-version': NEWEST });
  assert.deepEqual([first.status, replay.status, replay.headers.get('idempotent-replayed'), replay.headers.get('api-version')], [201, 201, 'true', NEWEST]);
  assert.equal(await replay.text(), await first.text());
  const other = await postJson(`${server.url}/api/workspaces`, body, key);
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
