import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertProblem } from '../support/assertions.ts';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

const COUNT = 60;
let server: TestServer;
let ids: number[] = []; // newest first

async function createProducts(count: number, label: string): Promise<number[]> {
  const created: number[] = [];
  for (let i = 0; i < count; i++) {
    const response = await postJson(`${server.url}/api/products`, { name: `${label} ${i}`, priceInCents: i });
    created.push(((await response.json()) as { id: number }).id);
  }
  return created;
}

before(async () => {
  server = await startTestServer();
  ids = (await createProducts(COUNT, 'seed')).reverse();
  for (let i = 0; i < 3; i++) await postJson(`${server.url}/api/workspaces`, { name: `w${i}` });
});
after(() => server.stop());

const LINK = /^<(\/api\/products\?limit=(\d+)&cursor=([A-Za-z0-9_-]+))>; rel="next"$/;

async function list(query: string): Promise<{ ids: number[]; link: string | null; response: Response }> {
  const response = await fetch(`${server.url}/api/products${query}`);
  assert.equal(response.status, 200, query);
  const items = (await response.json()) as { id: number }[];
  return { ids: items.map((item) => item.id), link: response.headers.get('link'), response };
}

test('the default page is the 50 newest, with a Link to the rest carrying limit=50', async () => {
  const page = await list('');
  assert.deepEqual(page.ids, ids.slice(0, 50));
  const match = LINK.exec(page.link ?? '');
  assert.ok(match, `Link ${page.link}`);
  assert.equal(match[2], '50');
  const rest = await list(match[1]?.slice('/api/products'.length) ?? '');
  assert.deepEqual(rest.ids, ids.slice(50));
  assert.equal(rest.link, null, 'no Link on the last page');
});

test('limit 1 and 200 are accepted; Link appears only when more items exist', async () => {
  const one = await list('?limit=1');
  assert.deepEqual(one.ids, ids.slice(0, 1));
  assert.match(one.link ?? '', LINK);
  const all = await list('?limit=200');
  assert.deepEqual(all.ids, ids);
  assert.equal(all.link, null);
  assert.equal((await list(`?limit=${COUNT}`)).link, null, 'exactly as many as exist: no next page');
  assert.match((await list(`?limit=${COUNT - 1}`)).link ?? '', LINK);
});

test('unknown query parameters are ignored', async () => {
  const page = await list('?sort=name&offset=10&page=3&filter[x]=1&limit=5');
  assert.deepEqual(page.ids, ids.slice(0, 5));
});

test('walking the Link chain to the end with items created in between: none twice, none lost, newest first', async () => {
  const seen: number[] = [];
  let next: string | null = '/api/products?limit=7';
  let pages = 0;
  const createdMeanwhile: number[] = [];
  while (next !== null && pages < 100) {
    const response = await fetch(`${server.url}${next}`);
    const items = (await response.json()) as { id: number }[];
    seen.push(...items.map((item) => item.id));
    const link = response.headers.get('link');
    next = link === null ? null : (LINK.exec(link)?.[1] ?? null);
    pages++;
    createdMeanwhile.push(...(await createProducts(2, 'meanwhile')));
  }
  assert.deepEqual(seen, ids, 'exactly the items that existed when the walk began, in id order descending');
  assert.equal(pages, Math.ceil(COUNT / 7));
  // What was created during the walk is on the first page of a new walk.
  const fresh = await list('?limit=200');
  assert.deepEqual(fresh.ids.slice(0, createdMeanwhile.length), [...createdMeanwhile].reverse());
  ids = fresh.ids;
});

test('a bad limit is 400 invalid_query naming the parameter', async () => {
  for (const limit of ['0', '201', 'abc', '1.5', '', '-1', '1e2', ' 5']) {
    const query = `?limit=${encodeURIComponent(limit)}`;
    const problem = await assertProblem(await fetch(`${server.url}/api/products${query}`), 400, 'invalid_query', '/api/products');
    const errors = problem['errors'] as { parameter: string; code: string; detail: string }[];
    assert.equal(errors.length, 1);
    assert.equal(errors[0]?.parameter, 'limit', limit);
    assert.ok(!('pointer' in (errors[0] ?? {})));
    assert.equal(errors[0]?.detail, 'limit must be an integer from 1 to 200');
  }
});

test('a bad cursor is 400 invalid_query naming the parameter', async () => {
  const workspacesLink = (await fetch(`${server.url}/api/workspaces?limit=1`)).headers.get('link') ?? '';
  const workspaceCursor = /cursor=([^>]+)>/.exec(workspacesLink)?.[1];
  assert.ok(workspaceCursor);
  const productCursor = /cursor=([^>]+)>/.exec((await list('?limit=1')).link ?? '')?.[1] ?? '';
  const tampered = `${productCursor.slice(0, -1)}${productCursor.endsWith('A') ? 'B' : 'A'}`;
  for (const cursor of ['', 'garbage!', 'abc', workspaceCursor, tampered, 'A'.repeat(500), Buffer.from('products:99999999999999999999').toString('base64url')]) {
    const response = await fetch(`${server.url}/api/products?cursor=${encodeURIComponent(cursor)}`);
    assert.equal(response.status, 400, `cursor ${cursor}`);
    const problem = await assertProblem(response, 400, 'invalid_query', '/api/products');
    assert.equal((problem['errors'] as { parameter: string }[])[0]?.parameter, 'cursor', cursor);
  }
});

test('workspaces page the same way', async () => {
  const first = await fetch(`${server.url}/api/workspaces?limit=2`);
  const link = first.headers.get('link') ?? '';
  assert.match(link, /^<\/api\/workspaces\?limit=2&cursor=[A-Za-z0-9_-]+>; rel="next"$/);
  const rest = await fetch(`${server.url}${/^<([^>]+)>/.exec(link)?.[1] ?? ''}`);
  assert.equal(((await rest.json()) as unknown[]).length, 1);
  assert.equal(rest.headers.get('link'), null);
  await assertProblem(await fetch(`${server.url}/api/workspaces?limit=201`), 400, 'invalid_query', '/api/workspaces');
});
