import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertProblem } from '../support/assertions.ts';
import { settle } from '../support/events.ts';
import { patchJson, postJson, startTestServer, type TestServer } from '../support/server.ts';

// Products' own rule (src/products/resource.ts): an archived product is read-only except for its
// status. The rules every resource shares are tested over all of them (changes.test.ts, deletes.test.ts,
// events-feed.test.ts); this is what only products add.

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.stop());

type Product = { id: number; name: string; priceInCents: number; status: number; createdAt: string; updatedAt: string };

async function createProduct(body: Record<string, unknown> = {}): Promise<Product> {
  const response = await postJson(`${server.url}/api/products`, { name: 'Lamp', priceInCents: 100, ...body });
  assert.equal(response.status, 201);
  return (await response.json()) as Product;
}

const read = async (id: number): Promise<Product> => (await (await fetch(`${server.url}/api/products/${id}`)).json()) as Product;
const patchProduct = (id: number, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
  patchJson(`${server.url}/api/products/${id}`, body, headers);

test('an archived product cannot change name or price (409 product_archived), and nothing changes', async () => {
  const product = await createProduct({ status: 2 });
  for (const body of [{ name: 'Renamed' }, { priceInCents: 1 }, { name: 'Renamed', status: 2 }]) {
    const problem = await assertProblem(await patchProduct(product.id, body), 409, 'product_archived', `/api/products/${product.id}`);
    assert.equal(problem['title'], 'Conflict');
  }
  assert.deepEqual(await read(product.id), product);
});

test('archiving and renaming in one patch is refused too; archiving alone is fine', async () => {
  const product = await createProduct({ status: 1 });
  await assertProblem(await patchProduct(product.id, { status: 2, priceInCents: 5 }), 409, 'product_archived', `/api/products/${product.id}`);
  const archived = await patchProduct(product.id, { status: 2 });
  assert.equal(archived.status, 200);
  assert.deepEqual({ ...((await archived.json()) as Product), updatedAt: '' }, { ...product, status: 2, updatedAt: '' });
});

test('an archived product may be unarchived, or unarchived and edited in one step; sending its own values is no change', async () => {
  const product = await createProduct({ status: 2 });
  const same = await patchProduct(product.id, { name: 'Lamp', priceInCents: 100 });
  assert.equal(same.status, 200, 'the stored values are not "another name or price"');
  const edited = await patchProduct(product.id, { status: 1, name: 'Back again', priceInCents: 7 });
  assert.equal(edited.status, 200);
  const body = (await edited.json()) as Product;
  assert.deepEqual([body.status, body.name, body.priceInCents], [1, 'Back again', 7]);
  assert.equal(edited.headers.get('etag'), '"2"');
});

test('a refused change records no event: the 409 changes nothing, its event included', async () => {
  const product = await createProduct({ status: 2 });
  const start = (await settle(server.url, null)).marker;
  assert.equal((await patchProduct(product.id, { name: 'Loud' })).status, 409);
  assert.equal((await patchProduct(product.id, { status: 2 })).status, 200, 'its own value: no change');
  assert.deepEqual((await settle(server.url, start)).events, []);
});

test('DELETE of an archived product is allowed: the archived rule only guards edits', async () => {
  const product = await createProduct({ status: 2 });
  assert.equal((await fetch(`${server.url}/api/products/${product.id}`, { method: 'DELETE' })).status, 204);
  assert.equal((await fetch(`${server.url}/api/products/${product.id}`)).status, 404);
});
