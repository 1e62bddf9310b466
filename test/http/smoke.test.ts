import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.stop());

test('a created product is listed first and readable by id', async () => {
  const created = await postJson(`${server.url}/api/products`, { name: 'Desk lamp', priceInCents: 1999 });
  assert.equal(created.status, 201);
  const product = (await created.json()) as { id: number };
  assert.equal(created.headers.get('location'), `/api/products/${product.id}`);
  const list = (await (await fetch(`${server.url}/api/products`)).json()) as { id: number }[];
  assert.equal(list[0]?.id, product.id);
  const one = await fetch(`${server.url}/api/products/${product.id}`);
  assert.deepEqual(await one.json(), product);
});
