import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertProblem, assertRecentTimestamp, NON_IDS } from '../support/assertions.ts';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.stop());

test('POST /api/products creates: 201, Location, exactly the documented members, status defaults to 1', async () => {
  const response = await postJson(`${server.url}/api/products`, { name: '  Desk lamp ', priceInCents: 1999 });
  assert.equal(response.status, 201);
  assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
  const product = (await response.json()) as Record<string, unknown>;
  assert.deepEqual(Object.keys(product), ['id', 'name', 'priceInCents', 'status', 'createdAt', 'updatedAt']);
  assert.ok(Number.isSafeInteger(product['id']) && (product['id'] as number) > 0);
  assert.equal(response.headers.get('location'), `/api/products/${product['id']}`);
  assert.equal(product['name'], 'Desk lamp', 'the trimmed name is stored');
  assert.equal(product['priceInCents'], 1999);
  assert.equal(product['status'], 1);
  assertRecentTimestamp(product['createdAt']);
  assert.equal(product['updatedAt'], product['createdAt'], 'updatedAt equals createdAt until the first change');
  assert.equal(response.headers.get('etag'), '"1"');
});

test('an archived product keeps status 2, and the boundaries of every field are stored as sent', async () => {
  const name = '\u{1F600}'.repeat(200);
  const response = await postJson(`${server.url}/api/products`, { name, priceInCents: 2147483647, status: 2 });
  assert.equal(response.status, 201);
  const product = (await response.json()) as Record<string, unknown>;
  const again = (await (await fetch(`${server.url}${response.headers.get('location')}`)).json()) as Record<string, unknown>;
  assert.deepEqual(again, product);
  assert.equal(again['name'], name);
  assert.equal(again['priceInCents'], 2147483647);
  assert.equal(again['status'], 2);
  const free = await postJson(`${server.url}/api/products`, { name: 'x', priceInCents: 0 });
  assert.equal(((await free.json()) as Record<string, unknown>)['priceInCents'], 0);
});

test('GET /api/products/{id} returns the same representation as the 201', async () => {
  const created = (await (await postJson(`${server.url}/api/products`, { name: 'Chair', priceInCents: 5000 })).json()) as { id: number };
  const response = await fetch(`${server.url}/api/products/${created.id}`);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.deepEqual(await response.json(), created);
});

test('GET /api/products lists products newest first with exactly the documented members', async () => {
  const first = (await (await postJson(`${server.url}/api/products`, { name: 'A', priceInCents: 1 })).json()) as { id: number };
  const second = (await (await postJson(`${server.url}/api/products`, { name: 'B', priceInCents: 2 })).json()) as { id: number };
  const response = await fetch(`${server.url}/api/products`);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
  const list = (await response.json()) as Record<string, unknown>[];
  assert.ok(Array.isArray(list));
  assert.deepEqual(list.slice(0, 2), [second, first]);
  for (const item of list) {
    assert.deepEqual(Object.keys(item), ['id', 'name', 'priceInCents', 'status', 'createdAt', 'updatedAt']);
    assertRecentTimestamp(item['createdAt']);
  }
});

test('an unknown id is 404 not_found', async () => {
  const problem = await assertProblem(await fetch(`${server.url}/api/products/999999`), 404, 'not_found', '/api/products/999999');
  assert.equal(problem['title'], 'Not Found');
  await assertProblem(await fetch(`${server.url}/api/products/9007199254740991`), 404, 'not_found', '/api/products/9007199254740991');
});

test('an id that is not a positive safe integer is 404', async () => {
  await postJson(`${server.url}/api/products`, { name: 'One', priceInCents: 1 });
  for (const id of NON_IDS) {
    await assertProblem(await fetch(`${server.url}/api/products/${id}`), 404, 'not_found', `/api/products/${id}`);
  }
});

test('a product that fails validation is not stored', async () => {
  const before = (await (await fetch(`${server.url}/api/products?limit=200`)).json()) as unknown[];
  const response = await postJson(`${server.url}/api/products`, { name: 'Lamp', priceInCents: -1 });
  assert.equal(response.status, 422);
  const afterList = (await (await fetch(`${server.url}/api/products?limit=200`)).json()) as unknown[];
  assert.deepEqual(afterList, before);
});
