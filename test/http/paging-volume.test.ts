import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

// More items than the largest page (200): a walk at limit=200 must find a next page after a full one,
// and every item exactly once. (test/http/paging.test.ts walks 60 items, less than one such page.)
const MAX_LIMIT = 200;
const COUNT = MAX_LIMIT + 50;
const RESOURCES = { products: (i: number) => ({ name: `volume ${i}`, priceInCents: i }), workspaces: (i: number) => ({ name: `volume ${i}` }) };

let server: TestServer;
const created: Record<string, number[]> = {};
before(async () => {
  server = await startTestServer();
  for (const [resource, body] of Object.entries(RESOURCES)) {
    const ids: number[] = [];
    // In batches, in order: ids grow with i.
    for (let start = 0; start < COUNT; start += 25) {
      const batch = Array.from({ length: Math.min(25, COUNT - start) }, (_, i) => postJson(`${server.url}/api/${resource}`, body(start + i)));
      for (const response of await Promise.all(batch)) {
        assert.equal(response.status, 201);
        ids.push(((await response.json()) as { id: number }).id);
      }
    }
    created[resource] = ids.sort((a, b) => b - a);
  }
});
after(() => server.stop());

/** Follows the Link chain from `first`; the ids of each page. */
async function walk(first: string): Promise<number[][]> {
  const pages: number[][] = [];
  let next: string | null = first;
  while (next !== null && pages.length < 100) {
    const response = await fetch(`${server.url}${next}`);
    assert.equal(response.status, 200, next);
    pages.push(((await response.json()) as { id: number }[]).map((item) => item.id));
    next = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1] ?? null;
  }
  return pages;
}

for (const resource of Object.keys(RESOURCES)) {
  test(`${resource}: ${COUNT} items walked at limit=${MAX_LIMIT}: a full page, then the rest, each item once`, async () => {
    const pages = await walk(`/api/${resource}?limit=${MAX_LIMIT}`);
    assert.deepEqual(pages.map((page) => page.length), [MAX_LIMIT, COUNT - MAX_LIMIT]);
    assert.deepEqual(pages.flat(), created[resource]);
  });

  test(`${resource}: ${COUNT} items walked at the default limit: five pages of 50`, async () => {
    const pages = await walk(`/api/${resource}`);
    assert.deepEqual(pages.map((page) => page.length), [50, 50, 50, 50, 50]);
    assert.deepEqual(pages.flat(), created[resource]);
  });
}

test(`products: the status filter walks past a full page of ${MAX_LIMIT} too`, async () => {
  const pages = await walk(`/api/products?status=1&limit=${MAX_LIMIT}`);
  assert.deepEqual(pages.map((page) => page.length), [MAX_LIMIT, COUNT - MAX_LIMIT]);
  assert.deepEqual(pages.flat(), created['products']);
});
