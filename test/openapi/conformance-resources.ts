import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { Resource } from '../../src/resources/resource.ts';
import { changingPatch, inVersion, refusals, RESOURCES as SERVED } from '../support/resources.ts';
import { type ConformanceRun, itemsOf } from './conformance-run.ts';

// Products and workspaces: every operation and every client error of theirs, met on the run's server,
// with the bodies of the run's API version.
type Json = Record<string, unknown>;
const products = SERVED.find((resource) => resource.plural === 'products') as Resource;

/** The resources of the contract that every mode serves, each with a body that creates one in the run's version. */
export const RESOURCES = SERVED.map((resource) => ({ path: resource.path, body: (run: ConformanceRun) => run.bodyOf(resource) }));

/** Registers, in the current suite, the tests of the resources' reads, creates and their client errors. */
export function readAndCreateTests(run: ConformanceRun): void {
  for (const { path, body: bodyIn } of RESOURCES) {
    const item = `${path}/{id}`;
    test(`${path}: create, replay, list pages, read, HEAD and 404 conform`, async () => {
      const body = bodyIn(run);
      await run.expectStatus('POST', path, run.post(path, body), 201);
      const key = { 'idempotency-key': `key-${path}` };
      const first = await run.expectStatus('POST', path, run.post(path, body, key), 201);
      const replayed = await run.post(path, body, key);
      assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(await run.expectStatus('POST', path, replayed, 201), first);
      const page = await run.get(`${path}?limit=1`);
      const link = /^<([^>]+)>; rel="next"$/.exec(page.headers.get('link') ?? '')?.[1];
      await run.expectStatus('GET', path, page, 200);
      assert.ok(link !== undefined, 'a Link to the next page');
      await run.expectStatus('GET', path, run.get(link), 200);
      await run.expectStatus('HEAD', path, run.get(path, { method: 'HEAD' }), 200);
      await run.expectStatus('GET', item, run.get(`${path}/${String(first['id'])}`), 200);
      await run.expectStatus('HEAD', item, run.get(`${path}/${String(first['id'])}`, { method: 'HEAD' }), 200);
      await run.expectStatus('GET', item, run.get(`${path}/999999`), 404);
      await run.expectStatus('GET', item, run.get(`${path}/abc`), 404);
    });

    test(`${path}: every client error of a list and a create conforms`, async () => {
      const body = bodyIn(run);
      for (const query of ['limit=0', 'limit=abc', 'limit=201', 'cursor=bad!']) await run.expectStatus('GET', path, run.get(`${path}?${query}`), 400);
      await run.expectStatus('POST', path, run.post(path, '{"name":'), 400);
      await run.expectStatus('POST', path, run.post(path, ''), 400);
      await run.expectStatus('POST', path, run.post(path, body, { 'idempotency-key': 'k'.repeat(256) }), 400);
      await run.expectStatus('POST', path, run.post(path, { name: 'x'.repeat(2_000) }), 413);
      const auth = run.auth('POST');
      await run.expectStatus('POST', path, fetch(`${run.url}${path}`, { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: '{}' }), 415);
      const gzipped = { method: 'POST', headers: { ...auth, 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync(JSON.stringify(body)) };
      await run.expectStatus('POST', path, fetch(`${run.url}${path}`, gzipped), 415);
      await run.expectStatus('POST', path, run.post(path, { nme: 'typo' }), 422);
      await run.expectStatus('POST', path, run.post(path, [body]), 422);
      await run.post(path, body, { 'idempotency-key': `reuse-${path}` });
      await run.expectStatus('POST', path, run.post(path, { ...body, name: 'Other' }, { 'idempotency-key': `reuse-${path}` }), 422);
    });
  }
}

/** Registers the tests of the resources' changes and deletes. */
export function changeAndDeleteTests(run: ConformanceRun): void {
  for (const { path, body: bodyIn } of RESOURCES) {
    const item = `${path}/{id}`;
    test(`${path}: 304, change under both media types, delete and what follows conform`, async () => {
      const body = bodyIn(run);
      const created = await run.post(path, body);
      const url = created.headers.get('location') ?? '';
      const etag = created.headers.get('etag') ?? '';
      await run.expectStatus('POST', path, created, 201);
      await run.expectStatus('GET', item, run.get(url, { headers: { 'if-none-match': etag } }), 304);
      await run.expectStatus('HEAD', item, run.get(url, { method: 'HEAD', headers: { 'if-none-match': etag } }), 304);
      const changed = await run.patch(url, { name: 'Renamed' }, { 'if-match': etag });
      const next = changed.headers.get('etag') ?? '';
      assert.equal((await run.expectStatus('PATCH', item, changed, 200))['name'], 'Renamed');
      assert.notEqual(next, etag);
      await run.expectStatus('PATCH', item, run.patch(url, {}, { 'content-type': 'application/json; charset=utf-8', 'if-match': '*' }), 200);
      await run.expectStatus('GET', item, run.get(url, { headers: { 'if-none-match': etag } }), 200);
      await run.expectStatus('DELETE', item, run.remove(url, { 'if-match': next }), 204);
      await run.expectStatus('GET', item, run.get(url), 404);
      await run.expectStatus('PATCH', item, run.patch(url, { name: 'Gone' }), 404);
      await run.expectStatus('DELETE', item, run.remove(url), 404);
    });
  }
}

/** Registers the tests of every client error of the resources' reads, changes and deletes. */
export function itemClientErrorTests(run: ConformanceRun): void {
  for (const { path, body: bodyIn } of RESOURCES) {
    const item = `${path}/{id}`;
    test(`${path}: every client error of a read, a change and a delete conforms`, async () => {
      const url = (await run.post(path, bodyIn(run))).headers.get('location') ?? '';
      for (const header of ['1', '"a" "b"', '*, "1"']) {
        await run.expectStatus('GET', item, run.get(url, { headers: { 'if-none-match': header } }), 400);
        await run.expectStatus('PATCH', item, run.patch(url, { name: 'x' }, { 'if-match': header }), 400);
        await run.expectStatus('DELETE', item, run.remove(url, { 'if-match': header }), 400);
      }
      await run.expectStatus('PATCH', item, run.patch(url, '{"name":'), 400);
      await run.expectStatus('PATCH', item, run.patch(url, ''), 400);
      await run.expectStatus('PATCH', item, run.patch(`${path}/999999`, { name: 'x' }), 404);
      await run.expectStatus('PATCH', item, run.patch(`${path}/abc`, { name: 'x' }), 404);
      await run.expectStatus('DELETE', item, run.remove(`${path}/0`), 404);
      await run.expectStatus('PATCH', item, run.patch(url, { name: 'x' }, { 'if-match': '"0"' }), 412);
      await run.expectStatus('DELETE', item, run.remove(url, { 'if-match': '"0", W/"1"' }), 412);
      const etag = (await run.get(url, { method: 'HEAD' })).headers.get('etag') ?? '';
      await run.expectStatus('GET', item, run.get(url, { headers: { 'if-match': '"0"' } }), 412);
      await run.expectStatus('HEAD', item, run.get(url, { method: 'HEAD', headers: { 'if-match': `W/${etag}` } }), 412);
      await run.expectStatus('PATCH', item, run.patch(url, { name: 'x' }, { 'if-none-match': etag }), 412);
      await run.expectStatus('DELETE', item, run.remove(url, { 'if-none-match': '*' }), 412);
      for (const header of ['1', '*, "1"']) {
        await run.expectStatus('GET', item, run.get(url, { headers: { 'if-match': header } }), 400);
        await run.expectStatus('PATCH', item, run.patch(url, { name: 'x' }, { 'if-none-match': header }), 400);
        await run.expectStatus('DELETE', item, run.remove(url, { 'if-none-match': header }), 400);
      }
      await run.expectStatus('PATCH', item, run.patch(url, { name: 'x'.repeat(2_000) }), 413);
      await run.expectStatus('PATCH', item, run.patch(url, { name: 'x' }, { 'content-type': 'application/json-patch+json' }), 415);
      await run.expectStatus('PATCH', item, run.patch(url, '{"name":"x"}', { 'content-encoding': 'br' }), 415);
      for (const invalid of [{ name: null }, { name: '   ', nme: 'typo' }, [], 'null']) await run.expectStatus('PATCH', item, run.patch(url, invalid), 422);
      await run.expectStatus('GET', item, run.get(url), 200);
    });
  }
}

// A patch of a product's price alone, whatever the run's version calls it.
function repricing(run: ConformanceRun): Json {
  const { name: _name, status: _status, ...price } = changingPatch(inVersion(products, run.version));
  return price;
}

/** Registers the tests of a product's archived rule, the status filter and every field error code of a product. */
export function productRuleTests(run: ConformanceRun): void {
  const item = '/api/products/{id}';
  test('409 product_archived conforms; a product may be archived, and unarchived with an edit', async () => {
    const url = (await run.post('/api/products', { ...run.bodyOf(products), status: 2 })).headers.get('location') ?? '';
    const refused = await run.expectStatus('PATCH', item, run.patch(url, repricing(run)), 409);
    assert.equal(refused['code'], 'product_archived');
    await run.expectStatus('PATCH', item, run.patch(url, { name: 'Stool', status: 2 }), 409);
    const edited = await run.expectStatus('PATCH', item, run.patch(url, { name: 'Stool', status: 1 }), 200);
    assert.deepEqual([edited['name'], edited['status']], ['Stool', 1]);
    assert.equal((await run.expectStatus('PATCH', item, run.patch(url, { status: 2 }), 200))['status'], 2);
  });

  test('a list filtered by status pages with the filter carried in Link; a bad filter or a cursor of another filter is 400', async () => {
    for (const name of ['Old stock', 'Older stock']) await run.post('/api/products', { ...run.bodyOf(products), name, status: 2 });
    const page = await run.get('/api/products?status=2&limit=1');
    const link = /^<([^>]+)>; rel="next"$/.exec(page.headers.get('link') ?? '')?.[1] ?? '';
    const first = itemsOf(await run.expectStatus('GET', '/api/products', page, 200));
    assert.match(link, /^\/api\/products\?limit=1&status=2&cursor=[\w-]+$/);
    const second = itemsOf(await run.expectStatus('GET', '/api/products', run.get(link), 200));
    assert.deepEqual([...first, ...second].map((product) => product['status']), [2, 2]);
    for (const query of ['status=3', 'status=archived', 'status=']) await run.expectStatus('GET', '/api/products', run.get(`/api/products?${query}`), 400);
    const problem = await run.expectStatus('GET', '/api/products', run.get(link.replace('status=2', 'status=1')), 400);
    assert.deepEqual((problem['errors'] as Json[]).map((e) => e['code']), ['invalid_cursor']);
    await run.expectStatus('GET', '/api/products', run.get(link.replace('&status=2', '')), 400);
  });

  test('every field error code of a product is produced, each at its pointer in the run\'s version', async () => {
    const shown = inVersion(products, run.version);
    const missing = await run.expectStatus('POST', '/api/products', run.post('/api/products', {}), 422);
    assert.ok((missing['errors'] as Json[]).length > 0);
    const unknown = await run.expectStatus('POST', '/api/products', run.post('/api/products', { ...run.bodyOf(products), price_in_cents: 1 }), 422);
    assert.deepEqual((unknown['errors'] as Json[]).map((e) => `${String(e['pointer'])} ${String(e['code'])}`), ['/price_in_cents unknown_field']);
    for (const { field, value, code, pointer } of refusals(shown)) {
      const problem = await run.expectStatus('POST', '/api/products', run.post('/api/products', { ...run.bodyOf(products), [field]: value }), 422);
      assert.deepEqual((problem['errors'] as Json[]).map((e) => `${String(e['pointer'])} ${String(e['code'])}`), [`${pointer} ${code}`]);
    }
  });
}
