import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Resource } from '../../src/resources/resource.ts';
import { assertProblem, RFC3339_UTC_MS } from '../support/assertions.ts';
import { followToEnd, followUntil, readFeed, settle, unknownIdLike, type WireEvent } from '../support/events.ts';
import { changeOf, createAt, eventTypesOf, type Json, type Made } from '../support/resource-requests.ts';
import { ALL_RESOURCES, refusals, RESOURCES, validBody, fieldsIn } from '../support/resources.ts';
import { patchJson, postJson, startTestServer, type TestServer } from '../support/server.ts';

// The feed of docs/events.md over every resource served (the test resource included): one event per
// committed change of each, none otherwise; the feed's paging, type filter, ETags and refusals.
let server: TestServer;
const SAMPLE = RESOURCES[0] as Resource;
before(async () => {
  server = await startTestServer({}, { resources: ALL_RESOURCES });
});
after(() => server.stop());

const ID = /^[A-Za-z0-9_-]{1,64}$/;

async function json(response: Response, status: number): Promise<Record<string, unknown>> {
  assert.equal(response.status, status);
  return (await response.json()) as Record<string, unknown>;
}

// Everything recorded after the event `from` by the changes acknowledged so far (a marker's event ends them).
async function eventsAfter(from: string | null): Promise<WireEvent[]> {
  return (await settle(server.url, from)).events;
}

// Where the feed stands once every change acknowledged so far is visible: a marker's event.
async function head(): Promise<string> {
  return (await settle(server.url, null)).marker;
}

// Each resource's fields with their own values, texts padded with white space the rules trim: no change.
function ownValues(resource: Resource, body: Json): Json {
  return Object.fromEntries(Object.keys(fieldsIn(resource)).map((field) => [field, typeof body[field] === 'string' ? `  ${body[field]} ` : body[field]]));
}

test('each type of every resource: exactly id, type, createdAt and data, the representation right after the change (before it, for a delete)', async () => {
  const start = await head();
  const expected: [string, Json][] = [];
  for (const resource of ALL_RESOURCES) {
    const [created, updated, deleted] = eventTypesOf(resource);
    const made = await createAt(server.url, resource, 1);
    const changed = await json(await patchJson(`${server.url}${made.path}`, changeOf(resource, made.body)), 200);
    assert.equal((await fetch(`${server.url}${made.path}`, { method: 'DELETE' })).status, 204);
    expected.push([created, made.body], [updated, changed], [deleted, changed]);
  }
  const events = await eventsAfter(start);
  assert.deepEqual(events.map((event) => [event.type, event.data]), expected);
  for (const event of events) {
    assert.deepEqual(Object.keys(event), ['id', 'type', 'createdAt', 'data']);
    assert.match(event.id, ID);
    assert.match(event.createdAt, RFC3339_UTC_MS);
  }
  assert.equal(new Set(events.map((event) => event.id)).size, expected.length, 'ids are unique');
  // A created or updated event is as old as the change it records.
  for (const [i, event] of events.entries()) {
    if (i % 3 === 0) assert.equal(event.createdAt, event.data['createdAt'], event.type);
    if (i % 3 === 1) assert.equal(event.createdAt, event.data['updatedAt'], event.type);
  }
});

test('no event for what changes nothing: refused, failed, unchanged PATCH, replay, second DELETE, 412, 404, on every resource', async () => {
  const made = new Map<Resource, Made>();
  for (const resource of ALL_RESOURCES) {
    made.set(resource, await createAt(server.url, resource, 2));
    await createAt(server.url, resource, 3, { 'idempotency-key': `quiet-${resource.plural}` });
  }
  const start = await head();
  const expected: string[] = [];
  for (const resource of ALL_RESOURCES) {
    const { path, body } = made.get(resource) as Made;
    const [refused] = refusals(resource);
    assert.ok(refused !== undefined);
    const url = `${server.url}${resource.path}`;
    const statuses = [
      (await postJson(url, { ...validBody(resource), [refused.field]: refused.value })).status, // 422
      (await postJson(url, '{"x":', {})).status, // 400
      (await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' })).status, // 415
      (await postJson(url, validBody(resource, 3), { 'idempotency-key': `quiet-${resource.plural}` })).status, // replayed 201
      (await patchJson(`${server.url}${path}`, {})).status, // 200, no change
      (await patchJson(`${server.url}${path}`, ownValues(resource, body))).status, // 200, its own values
      (await patchJson(`${server.url}${path}`, changeOf(resource, body), { 'if-match': '"99"' })).status, // 412
      (await fetch(`${server.url}${path}`, { method: 'DELETE', headers: { 'if-match': '"99"' } })).status, // 412
      (await patchJson(`${server.url}${path}`, { [refused.field]: null })).status, // 422
      (await patchJson(`${url}/99999999`, changeOf(resource, body))).status, // 404
    ];
    assert.deepEqual(statuses, [422, 400, 415, 201, 200, 200, 412, 412, 422, 404], resource.plural);
    assert.equal((await fetch(`${server.url}${path}`, { method: 'DELETE' })).status, 204);
    assert.equal((await fetch(`${server.url}${path}`, { method: 'DELETE' })).status, 404);
    expected.push(eventTypesOf(resource)[2]);
  }
  const events = await eventsAfter(start);
  assert.deepEqual(events.map((event) => event.type), expected, 'only the first DELETE of each recorded an event');
});

test('paging: oldest first, limit, next on every page (the same query again when empty), every event once', async () => {
  const start = await head();
  const ids: unknown[] = [];
  for (let i = 0; i < 7; i++) ids.push((await createAt(server.url, SAMPLE, i)).id);
  await settle(server.url, start);
  const first = await readFeed(server.url, `/api/events?limit=3&after=${start}`);
  assert.equal(first.events.length, 3);
  assert.equal(first.next, `/api/events?after=${first.events[2]?.id}&limit=3`);
  const rest = await followToEnd(server.url, first.next);
  const all = [...first.events, ...rest.events];
  assert.deepEqual(all.slice(0, -1).map((event) => [event.type, event.data['id']]), ids.map((id) => [eventTypesOf(SAMPLE)[0], id]));
  assert.equal(all.at(-1)?.data['name'], 'marker');
  const empty = await readFeed(server.url, rest.next);
  assert.deepEqual([empty.status, empty.events, empty.next], [200, [], rest.next], 'an empty page links to itself');
  const fromStart = await readFeed(server.url, '/api/events?limit=1');
  assert.equal(fromStart.events.length, 1);
  const deleted = eventTypesOf(SAMPLE)[2];
  const none = await readFeed(server.url, `/api/events?limit=1&type=${deleted}&after=${all.at(-1)?.id}`);
  assert.deepEqual([none.events, none.next], [[], `/api/events?after=${all.at(-1)?.id}&limit=1&type=${deleted}`]);
  assert.equal((await readFeed(server.url, '/api/events')).events.length <= 50, true, 'default limit 50');
});

for (const resource of ALL_RESOURCES) {
  test(`${resource.plural}: type keeps only the named types, and its next link carries them on; an unknown type is 400 invalid_query`, async () => {
    const [created, , deleted] = eventTypesOf(resource);
    const other = ALL_RESOURCES.find((candidate) => candidate !== resource) as Resource;
    const start = await head();
    const made = await createAt(server.url, resource, 5);
    await createAt(server.url, other, 5);
    assert.equal((await fetch(`${server.url}${made.path}`, { method: 'DELETE' })).status, 204);
    const query = `type=${deleted},${created}&after=${start}`;
    // Until the delete is seen (no marker: it could be of the types asked for).
    const { events } = await followUntil(server.url, `/api/events?${query}`, (seen) => seen.some((event) => event.type === deleted));
    assert.deepEqual(events.map((event) => [event.type, event.data['id']]), [[created, made.id], [deleted, made.id]]);
    // The types in the order of their stored numbers.
    const named = [created, deleted].sort((a, b) => Number(resource.events[a.split('.')[1] as 'created']) - Number(resource.events[b.split('.')[1] as 'created']));
    const page = await readFeed(server.url, `/api/events?${query}&limit=1`);
    assert.equal(page.next, `/api/events?after=${page.events[0]?.id}&limit=1&type=${named.join(',')}`);
    const capitalised = created.charAt(0).toUpperCase() + created.slice(1);
    for (const bad of [`${resource.singular}.moved`, '', `${created},`, capitalised, String(resource.events.created)]) {
      const problem = await assertProblem(await fetch(`${server.url}/api/events?type=${bad}`), 400, 'invalid_query', '/api/events');
      assert.equal((problem['errors'] as { parameter: string }[])[0]?.parameter, 'type', bad);
    }
  });
}

test('ETag: the same request with If-None-Match is 304 while nothing new is recorded, 200 once something is', async () => {
  const start = await head();
  const path = `/api/events?after=${start}`;
  const first = await fetch(`${server.url}${path}`);
  const etag = first.headers.get('etag');
  assert.match(etag ?? '', /^"[\x21\x23-\x7e]+"$/, 'a strong ETag');
  const again = await fetch(`${server.url}${path}`, { headers: { 'if-none-match': etag ?? '' } });
  assert.equal(again.status, 304);
  assert.equal(again.headers.get('etag'), etag);
  assert.equal(await again.text(), '');
  await settle(server.url, start, 'news');
  const changed = await fetch(`${server.url}${path}`, { headers: { 'if-none-match': etag ?? '' } });
  assert.equal(changed.status, 200);
  assert.notEqual(changed.headers.get('etag'), etag);
  const head304 = await fetch(`${server.url}${path}`, { method: 'HEAD', headers: { 'if-none-match': changed.headers.get('etag') ?? '' } });
  assert.equal(head304.status, 304);
});

test('ETag: a page that grows (one event, then two, then three) is 200 with a new tag each time, and 304 for the tag it has now', async () => {
  const start = await head();
  const path = `/api/events?after=${start}&type=product.created`;
  const tags: string[] = [];
  for (let size = 1; size <= 3; size++) {
    assert.equal((await postJson(`${server.url}/api/products`, { name: `grows ${size}`, priceInCents: 1 })).status, 201);
    await settle(server.url, start, `settled ${size}`);
    const before = tags.at(-1);
    const page = await fetch(`${server.url}${path}`, { headers: before === undefined ? {} : { 'if-none-match': before } });
    assert.equal(page.status, 200, `the page of ${size} events against the tag of ${size - 1}`);
    assert.equal(((await page.json()) as unknown[]).length, size);
    const tag = page.headers.get('etag') ?? '';
    assert.ok(!tags.includes(tag), `a new tag for ${size} events: ${tag} after ${tags.join(', ')}`);
    tags.push(tag);
    assert.equal((await fetch(`${server.url}${path}`, { headers: { 'if-none-match': tag } })).status, 304, `${size} events, nothing new`);
  }
});

test('HEAD answers like GET, without a body', async () => {
  const get = await fetch(`${server.url}/api/events?limit=2`);
  const headResponse = await fetch(`${server.url}/api/events?limit=2`, { method: 'HEAD' });
  assert.equal(headResponse.status, 200);
  for (const name of ['etag', 'link', 'content-type']) assert.equal(headResponse.headers.get(name), get.headers.get(name), name);
  assert.equal(await headResponse.text(), '');
});

test('a malformed after, or one that names no event, is 400 invalid_query; a bad limit is 400 too', async () => {
  const known = await head();
  for (const bad of ['abc', '1.5', '-1', '0', 'a'.repeat(65), '%20', '1_', '_1', unknownIdLike(known)]) {
    const problem = await assertProblem(await fetch(`${server.url}/api/events?after=${bad}`), 400, 'invalid_query', '/api/events');
    assert.equal((problem['errors'] as { parameter: string }[])[0]?.parameter, 'after', bad);
  }
  for (const limit of ['0', '201', 'x', '1.5']) {
    await assertProblem(await fetch(`${server.url}/api/events?limit=${limit}`), 400, 'invalid_query', '/api/events');
  }
  assert.equal((await fetch(`${server.url}/api/events?after=${known}&limit=200`)).status, 200);
});

test('the API\'s page lists the feed, made from the document that describes it', async () => {
  const page = await (await fetch(`${server.url}/api/docs`)).text();
  assert.ok(page.includes('/api/events'), 'GET /api/events on the page');
  assert.ok(page.includes('events_expired'), 'its 410 on the page');
});
