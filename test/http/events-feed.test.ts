import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertProblem, RFC3339_UTC_MS } from '../support/assertions.ts';
import { followToEnd, readFeed, settle, unknownIdLike, type WireEvent } from '../support/events.ts';
import { patchJson, postJson, startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
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

test('each of the six types: exactly id, type, createdAt and data, the representation right after the change (before it, for a delete)', async () => {
  const start = await head();
  const product = await json(await postJson(`${server.url}/api/products`, { name: 'Desk lamp', priceInCents: 1999 }), 201);
  const changed = await json(await patchJson(`${server.url}/api/products/${product['id']}`, { priceInCents: 2499 }), 200);
  assert.equal((await fetch(`${server.url}/api/products/${product['id']}`, { method: 'DELETE' })).status, 204);
  const workspace = await json(await postJson(`${server.url}/api/workspaces`, { name: 'Acme' }), 201);
  const renamed = await json(await patchJson(`${server.url}/api/workspaces/${workspace['id']}`, { name: 'Acme Ltd' }), 200);
  assert.equal((await fetch(`${server.url}/api/workspaces/${workspace['id']}`, { method: 'DELETE' })).status, 204);
  const events = await eventsAfter(start);
  assert.deepEqual(
    events.map((event) => [event.type, event.data]),
    [
      ['product.created', product],
      ['product.updated', changed],
      ['product.deleted', changed],
      ['workspace.created', workspace],
      ['workspace.updated', renamed],
      ['workspace.deleted', renamed],
    ],
  );
  for (const event of events) {
    assert.deepEqual(Object.keys(event), ['id', 'type', 'createdAt', 'data']);
    assert.match(event.id, ID);
    assert.match(event.createdAt, RFC3339_UTC_MS);
  }
  assert.equal(new Set(events.map((event) => event.id)).size, 6, 'ids are unique');
  // A created or updated event is as old as the change it records.
  assert.equal(events[0]?.createdAt, product['createdAt']);
  assert.equal(events[1]?.createdAt, changed['updatedAt']);
});

test('no event for what changes nothing: refused, failed, unchanged PATCH, replay, second DELETE, 412, 409 archived', async () => {
  const product = await json(await postJson(`${server.url}/api/products`, { name: 'Quiet', priceInCents: 1, status: 2 }), 201);
  const workspace = await json(await postJson(`${server.url}/api/workspaces`, { name: 'Quiet' }), 201);
  const keyed = { 'idempotency-key': `quiet-${Date.now()}` };
  assert.equal((await postJson(`${server.url}/api/workspaces`, { name: 'Once' }, keyed)).status, 201);
  const start = await head();
  const products = `${server.url}/api/products`;
  const statuses = [
    (await postJson(products, { name: '', priceInCents: -1 })).status, // 422
    (await postJson(products, '{"name":', {})).status, // 400
    (await fetch(products, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' })).status, // 415
    (await postJson(`${server.url}/api/workspaces`, { name: 'Once' }, keyed)).status, // replayed 201
    (await patchJson(`${products}/${product['id']}`, {})).status, // 200, no change
    (await patchJson(`${products}/${product['id']}`, { status: 2 })).status, // 200, its own value
    (await patchJson(`${products}/${product['id']}`, { name: 'Loud' })).status, // 409 archived
    (await patchJson(`${products}/${product['id']}`, { status: 1 }, { 'if-match': '"99"' })).status, // 412
    (await fetch(`${products}/${product['id']}`, { method: 'DELETE', headers: { 'if-match': '"99"' } })).status, // 412
    (await patchJson(`${server.url}/api/workspaces/${workspace['id']}`, { name: 'Quiet' })).status, // 200, no change
    (await patchJson(`${server.url}/api/workspaces/${workspace['id']}`, { name: null })).status, // 422
    (await patchJson(`${products}/99999999`, { name: 'x' })).status, // 404
  ];
  assert.deepEqual(statuses, [422, 400, 415, 201, 200, 200, 409, 412, 412, 200, 422, 404]);
  assert.equal((await fetch(`${server.url}/api/workspaces/${workspace['id']}`, { method: 'DELETE' })).status, 204);
  assert.equal((await fetch(`${server.url}/api/workspaces/${workspace['id']}`, { method: 'DELETE' })).status, 404);
  const events = await eventsAfter(start);
  assert.deepEqual(events.map((event) => event.type), ['workspace.deleted'], 'only the first DELETE recorded an event');
});

test('paging: oldest first, limit, next on every page (the same query again when empty), every event once', async () => {
  const start = await head();
  const names = Array.from({ length: 7 }, (_, i) => `page ${i}`);
  for (const name of names) assert.equal((await postJson(`${server.url}/api/workspaces`, { name })).status, 201);
  await settle(server.url, start);
  const first = await readFeed(server.url, `/api/events?limit=3&after=${start}`);
  assert.equal(first.events.length, 3);
  assert.equal(first.next, `/api/events?after=${first.events[2]?.id}&limit=3`);
  const rest = await followToEnd(server.url, first.next);
  const all = [...first.events, ...rest.events];
  assert.deepEqual(all.map((event) => event.data['name']), [...names, 'marker']);
  const empty = await readFeed(server.url, rest.next);
  assert.deepEqual([empty.status, empty.events, empty.next], [200, [], rest.next], 'an empty page links to itself');
  const fromStart = await readFeed(server.url, '/api/events?limit=1');
  assert.equal(fromStart.events.length, 1);
  const none = await readFeed(server.url, `/api/events?limit=1&type=product.deleted&after=${all.at(-1)?.id}`);
  assert.deepEqual([none.events, none.next], [[], `/api/events?after=${all.at(-1)?.id}&limit=1&type=product.deleted`]);
  assert.equal((await readFeed(server.url, '/api/events')).events.length <= 50, true, 'default limit 50');
});

test('type keeps only the named types, and its next link carries it on; an unknown type is 400 invalid_query', async () => {
  const start = await head();
  const product = await json(await postJson(`${server.url}/api/products`, { name: 'Typed', priceInCents: 5 }), 201);
  await json(await postJson(`${server.url}/api/workspaces`, { name: 'Typed' }), 201);
  assert.equal((await fetch(`${server.url}/api/products/${product['id']}`, { method: 'DELETE' })).status, 204);
  await settle(server.url, start);
  const query = `type=product.deleted,product.created&after=${start}`;
  const { events } = await followToEnd(server.url, `/api/events?${query}`);
  assert.deepEqual(events.map((event) => event.type), ['product.created', 'product.deleted']);
  const page = await readFeed(server.url, `/api/events?${query}&limit=1`);
  assert.equal(page.next, `/api/events?after=${page.events[0]?.id}&limit=1&type=product.created,product.deleted`);
  for (const bad of ['product.moved', '', 'product.created,', 'Product.created', '1']) {
    const problem = await assertProblem(await fetch(`${server.url}/api/events?type=${bad}`), 400, 'invalid_query', '/api/events');
    assert.equal((problem['errors'] as { parameter: string }[])[0]?.parameter, 'type');
  }
});

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
