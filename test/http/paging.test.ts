import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { VERSIONS } from '../../src/registry.ts';
import type { Resource } from '../../src/resources/resource.ts';
import { assertProblem } from '../support/assertions.ts';
import { createAt } from '../support/resource-requests.ts';
import { ALL_RESOURCES } from '../support/resources.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

// Keyset pages (docs/api.md, Lists) on every resource served, the test resource included: newest
// first, limits, the Link chain, and refused limits and cursors (one of another resource's list too).
const COUNT = 60;
let server: TestServer;
const ids = new Map<Resource, number[]>(); // newest first

async function createMany(resource: Resource, count: number, from: number): Promise<number[]> {
  const created: number[] = [];
  for (let i = 0; i < count; i++) created.push((await createAt(server.url, resource, from + i)).id);
  return created;
}

before(async () => {
  server = await startTestServer({}, { resources: ALL_RESOURCES });
  for (const resource of ALL_RESOURCES) ids.set(resource, (await createMany(resource, COUNT, 0)).reverse());
});
after(() => server.stop());

const cursorIn = (link: string | null): string => /cursor=([^>]+)>/.exec(link ?? '')?.[1] ?? '';

for (const [index, resource] of ALL_RESOURCES.entries()) {
  const { path, plural } = resource;
  const LINK = new RegExp(`^<(${path}\\?limit=(\\d+)&cursor=([A-Za-z0-9_-]+))>; rel="next"$`);
  const seeded = (): number[] => ids.get(resource) as number[];

  async function list(query: string): Promise<{ ids: number[]; link: string | null; response: Response }> {
    const response = await fetch(`${server.url}${path}${query}`);
    assert.equal(response.status, 200, query);
    const items = (await response.json()) as { id: number }[];
    return { ids: items.map((item) => item.id), link: response.headers.get('link'), response };
  }

  test(`${plural}: the default page is the 50 newest, with a Link to the rest carrying limit=50`, async () => {
    const page = await list('');
    assert.deepEqual(page.ids, seeded().slice(0, 50));
    const match = LINK.exec(page.link ?? '');
    assert.ok(match, `Link ${page.link}`);
    assert.equal(match[2], '50');
    const rest = await list(match[1]?.slice(path.length) ?? '');
    assert.deepEqual(rest.ids, seeded().slice(50));
    assert.equal(rest.link, null, 'no Link on the last page');
  });

  test(`${plural}: limit 1 and 200 are accepted; Link appears only when more items exist`, async () => {
    const one = await list('?limit=1');
    assert.deepEqual(one.ids, seeded().slice(0, 1));
    assert.match(one.link ?? '', LINK);
    const all = await list('?limit=200');
    assert.deepEqual(all.ids, seeded());
    assert.equal(all.link, null);
    assert.equal((await list(`?limit=${COUNT}`)).link, null, 'exactly as many as exist: no next page');
    assert.match((await list(`?limit=${COUNT - 1}`)).link ?? '', LINK);
  });

  test(`${plural}: every version lists the same pages; where a page is an object, { data, hasMore }, hasMore is true exactly when a Link is sent`, async () => {
    const seen = new Set<boolean>();
    for (const { version } of VERSIONS) {
      for (const query of ['?limit=1', `?limit=${COUNT - 1}`, `?limit=${COUNT}`, '?limit=200']) {
        const response = await fetch(`${server.url}${path}${query}`, { headers: { 'api-version': version } });
        const body = (await response.json()) as { id: number }[] | { data: { id: number }[]; hasMore: boolean };
        const link = response.headers.get('link');
        const at = `${version} ${query}`;
        assert.deepEqual((Array.isArray(body) ? body : body.data).map((item) => item.id), (await list(query)).ids, at);
        if (Array.isArray(body)) continue;
        assert.deepEqual([Object.keys(body), body.hasMore], [['data', 'hasMore'], link !== null], at);
        seen.add(body.hasMore);
      }
    }
    assert.deepEqual([...seen].sort(), [false, true], 'some version shows pages as objects, with more to come and without');
  });

  test(`${plural}: unknown query parameters are ignored`, async () => {
    const page = await list('?sort=name&offset=10&page=3&filter[x]=1&limit=5');
    assert.deepEqual(page.ids, seeded().slice(0, 5));
  });

  test(`${plural}: walking the Link chain to the end with items created in between: none twice, none lost, newest first`, async () => {
    const seen: number[] = [];
    let next: string | null = `${path}?limit=7`;
    let pages = 0;
    const createdMeanwhile: number[] = [];
    while (next !== null && pages < 100) {
      const response = await fetch(`${server.url}${next}`);
      const items = (await response.json()) as { id: number }[];
      seen.push(...items.map((item) => item.id));
      const link = response.headers.get('link');
      next = link === null ? null : (LINK.exec(link)?.[1] ?? null);
      pages++;
      createdMeanwhile.push(...(await createMany(resource, 2, 100 + 2 * pages)));
    }
    assert.deepEqual(seen, seeded(), 'exactly the items that existed when the walk began, in id order descending');
    assert.equal(pages, Math.ceil(COUNT / 7));
    // What was created during the walk is on the first page of a new walk.
    const fresh = await list('?limit=200');
    assert.deepEqual(fresh.ids.slice(0, createdMeanwhile.length), [...createdMeanwhile].reverse());
    ids.set(resource, fresh.ids);
  });

  test(`${plural}: a bad limit is 400 invalid_query naming the parameter`, async () => {
    for (const limit of ['0', '201', 'abc', '1.5', '', '-1', '1e2', ' 5']) {
      const problem = await assertProblem(await fetch(`${server.url}${path}?limit=${encodeURIComponent(limit)}`), 400, 'invalid_query', path);
      const errors = problem['errors'] as { parameter: string; code: string; detail: string }[];
      assert.equal(errors.length, 1);
      assert.equal(errors[0]?.parameter, 'limit', limit);
      assert.ok(!('pointer' in (errors[0] ?? {})));
      assert.equal(errors[0]?.detail, 'limit must be an integer from 1 to 200');
    }
  });

  test(`${plural}: a bad cursor, or one of another resource's list, is 400 invalid_query naming the parameter`, async () => {
    const other = ALL_RESOURCES[(index + 1) % ALL_RESOURCES.length] as Resource;
    const othersCursor = cursorIn((await fetch(`${server.url}${other.path}?limit=1`)).headers.get('link'));
    assert.notEqual(othersCursor, '');
    const own = cursorIn((await list('?limit=1')).link);
    const tampered = `${own.slice(0, -1)}${own.endsWith('A') ? 'B' : 'A'}`;
    for (const cursor of ['', 'garbage!', 'abc', othersCursor, tampered, 'A'.repeat(500), Buffer.from(`${plural}:99999999999999999999`).toString('base64url')]) {
      const problem = await assertProblem(await fetch(`${server.url}${path}?cursor=${encodeURIComponent(cursor)}`), 400, 'invalid_query', path);
      assert.equal((problem['errors'] as { parameter: string }[])[0]?.parameter, 'cursor', cursor);
    }
  });
}
