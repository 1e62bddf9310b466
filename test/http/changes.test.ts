import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertProblem, NON_IDS } from '../support/assertions.ts';
import { patchJson, postJson, startTestServer, type TestServer } from '../support/server.ts';

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

test('PATCH replaces the members sent, keeps the others, moves updatedAt and the ETag, and answers what a GET reads', async () => {
  const product = await createProduct();
  await new Promise((resolve) => setTimeout(resolve, 5));
  const response = await patchProduct(product.id, { name: '  Brass lamp ', priceInCents: 250 });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.equal(response.headers.get('etag'), '"2"');
  const changed = (await response.json()) as Product;
  assert.deepEqual(Object.keys(changed), ['id', 'name', 'priceInCents', 'status', 'createdAt', 'updatedAt']);
  assert.deepEqual({ ...changed, updatedAt: '' }, { ...product, name: 'Brass lamp', priceInCents: 250, updatedAt: '' });
  assert.equal(changed.createdAt, product.createdAt);
  assert.ok(changed.updatedAt > product.updatedAt, `${changed.updatedAt} moves past ${product.updatedAt}`);
  assert.deepEqual(await read(product.id), changed);
});

test('application/json is accepted for PATCH with the same meaning, charset=utf-8 in any case too', async () => {
  const product = await createProduct();
  const json = await patchProduct(product.id, { status: 2 }, { 'content-type': 'application/json' });
  assert.equal(json.status, 200);
  assert.equal(((await json.json()) as Product).status, 2);
  const withCharset = await patchProduct(product.id, { status: 1 }, { 'content-type': 'Application/Merge-Patch+JSON; Charset=UTF-8' });
  assert.equal(withCharset.status, 200);
});

test('any other media type, or none, is 415 and changes nothing', async () => {
  const product = await createProduct();
  for (const type of ['text/plain', 'application/json-patch+json', 'application/merge-patch+json; charset=latin1', 'application/x-www-form-urlencoded']) {
    await assertProblem(await patchProduct(product.id, { name: 'x' }, { 'content-type': type }), 415, 'unsupported_media_type', `/api/products/${product.id}`);
  }
  const none = await fetch(`${server.url}/api/products/${product.id}`, { method: 'PATCH', body: '{"name":"x"}' });
  assert.equal(none.status, 415);
  await none.arrayBuffer();
  assert.deepEqual(await read(product.id), product);
});

test('a patch that changes no value (and {}) answers 200 with the same representation, updatedAt and ETag', async () => {
  const product = await createProduct({ status: 1 });
  for (const body of [{}, { name: 'Lamp' }, { name: '  Lamp  ', priceInCents: 100, status: 1 }]) {
    const response = await patchProduct(product.id, body);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('etag'), '"1"');
    assert.deepEqual(await response.json(), product);
  }
  assert.deepEqual(await read(product.id), product);
});

test('every field follows its create rule, every error is reported at once, and nothing changes', async () => {
  const product = await createProduct();
  const response = await patchProduct(product.id, { name: ' ', priceInCents: -1, status: 3, price_in_cents: 5 });
  const problem = await assertProblem(response, 422, 'validation_failed', `/api/products/${product.id}`);
  const codes = (problem['errors'] as { pointer: string; code: string }[]).map((e) => `${e.pointer} ${e.code}`);
  assert.deepEqual(codes, ['/name too_short', '/priceInCents too_small', '/status invalid_enum', '/price_in_cents unknown_field']);
  assert.equal(problem['detail'], 'The request body has 4 invalid fields.');
  const more = await patchProduct(product.id, { name: 'x'.repeat(201), priceInCents: 1.5, status: '2', __proto__x: 1 });
  const moreCodes = ((await more.json()) as { errors: { code: string }[] }).errors.map((e) => e.code);
  assert.deepEqual(moreCodes, ['too_long', 'not_integer', 'type', 'unknown_field']);
  assert.deepEqual(await read(product.id), product);
});

test('null is a type error for every field: no field can be removed', async () => {
  const product = await createProduct();
  const response = await patchProduct(product.id, { name: null, priceInCents: null, status: null });
  const problem = await assertProblem(response, 422, 'validation_failed', `/api/products/${product.id}`);
  assert.deepEqual(
    (problem['errors'] as { pointer: string; code: string }[]).map((e) => `${e.pointer} ${e.code}`),
    ['/name type', '/priceInCents type', '/status type'],
  );
  assert.deepEqual(await read(product.id), product);
});

test('a body that is not one JSON object is 422 type at the root; not JSON is 400 invalid_json', async () => {
  const product = await createProduct();
  for (const body of ['[]', '[{"name":"x"}]', '1', '"x"', 'null', 'true']) {
    const problem = await assertProblem(await patchProduct(product.id, body), 422, 'validation_failed', `/api/products/${product.id}`);
    assert.deepEqual(problem['errors'], [{ pointer: '', code: 'type', detail: 'The request body must be a JSON object.' }]);
  }
  for (const body of ['', '{', '{"name":}', '{"name":"x"} extra']) {
    await assertProblem(await patchProduct(product.id, body), 400, 'invalid_json', `/api/products/${product.id}`);
  }
  assert.deepEqual(await read(product.id), product);
});

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

test('PATCH of an unknown or malformed id is 404, whatever the body', async () => {
  await assertProblem(await patchProduct(99_999_999, { name: 'x' }), 404, 'not_found', '/api/products/99999999');
  await assertProblem(await patchProduct(99_999_999, { name: 'x' }, { 'if-match': '*' }), 404, 'not_found', '/api/products/99999999');
  for (const id of NON_IDS) {
    const response = await patchJson(`${server.url}/api/products/${id}`, { name: 'x' });
    await assertProblem(response, 404, 'not_found', `/api/products/${id}`);
  }
});

test('workspaces: PATCH renames by the same name rule, no-op keeps the version, null and other members are errors', async () => {
  const created = await postJson(`${server.url}/api/workspaces`, { name: 'Acme' });
  const workspace = (await created.json()) as { id: number; name: string; updatedAt: string };
  const url = `${server.url}/api/workspaces/${workspace.id}`;
  const renamed = await patchJson(url, { name: ' Acme Ltd ' });
  assert.equal(renamed.status, 200);
  assert.equal(renamed.headers.get('etag'), '"2"');
  assert.equal(((await renamed.json()) as { name: string }).name, 'Acme Ltd');
  const same = await patchJson(url, { name: 'Acme Ltd' });
  assert.equal(same.headers.get('etag'), '"2"');
  await same.arrayBuffer();
  const problem = await assertProblem(await patchJson(url, { name: null, priceInCents: 1 }), 422, 'validation_failed', `/api/workspaces/${workspace.id}`);
  assert.deepEqual((problem['errors'] as { code: string }[]).map((e) => e.code), ['type', 'unknown_field']);
});

test('a body over the limit is 413 before it is read, and changes nothing', async () => {
  const product = await createProduct();
  const big = JSON.stringify({ name: 'x'.repeat(20_000) });
  await assertProblem(await patchProduct(product.id, big), 413, 'payload_too_large', `/api/products/${product.id}`);
  assert.deepEqual(await read(product.id), product);
});
