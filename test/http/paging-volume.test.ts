import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Resource } from '../../src/resources/resource.ts';
import { ALL_RESOURCES, filtersOf, validBody } from '../support/resources.ts';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

// More items than the largest page (200): a walk at limit=200 must find a next page after a full one,
// and every item exactly once; on every resource served (the test resource included), and under each
// of its list filters. (test/http/paging.test.ts walks 60 items, less than one such page.)
const MAX_LIMIT = 200;
const COUNT = MAX_LIMIT + 50;

let server: TestServer;
const created = new Map<Resource, number[]>();
before(async () => {
  server = await startTestServer({}, { resources: ALL_RESOURCES });
  for (const resource of ALL_RESOURCES) {
    // Every item holds the value each filter walks by, so a filtered walk passes a full page too.
    const filtered = Object.fromEntries(filtersOf(resource).map((filter) => [filter.field, filter.value]));
    const ids: number[] = [];
    // In batches, in order: ids grow with i.
    for (let start = 0; start < COUNT; start += 25) {
      const batch = Array.from({ length: Math.min(25, COUNT - start) }, (_, i) => postJson(`${server.url}${resource.path}`, { ...validBody(resource, start + i), ...filtered }));
      for (const response of await Promise.all(batch)) {
        assert.equal(response.status, 201);
        ids.push(((await response.json()) as { id: number }).id);
      }
    }
    created.set(resource, ids.sort((a, b) => b - a));
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

for (const resource of ALL_RESOURCES) {
  const { path, plural } = resource;

  test(`${plural}: ${COUNT} items walked at limit=${MAX_LIMIT}: a full page, then the rest, each item once`, async () => {
    const pages = await walk(`${path}?limit=${MAX_LIMIT}`);
    assert.deepEqual(pages.map((page) => page.length), [MAX_LIMIT, COUNT - MAX_LIMIT]);
    assert.deepEqual(pages.flat(), created.get(resource));
  });

  test(`${plural}: ${COUNT} items walked at the default limit: five pages of 50`, async () => {
    const pages = await walk(path);
    assert.deepEqual(pages.map((page) => page.length), [50, 50, 50, 50, 50]);
    assert.deepEqual(pages.flat(), created.get(resource));
  });

  for (const { field, value } of filtersOf(resource)) {
    test(`${plural}: the ${field} filter walks past a full page of ${MAX_LIMIT} too`, async () => {
      const pages = await walk(`${path}?${field}=${value}&limit=${MAX_LIMIT}`);
      assert.deepEqual(pages.map((page) => page.length), [MAX_LIMIT, COUNT - MAX_LIMIT]);
      assert.deepEqual(pages.flat(), created.get(resource));
    });
  }
}
