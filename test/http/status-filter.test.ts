import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertProblem } from '../support/assertions.ts';
import { patchJson, postJson, startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
const byStatus: Record<1 | 2, number[]> = { 1: [], 2: [] }; // newest first

before(async () => {
  server = await startTestServer();
  for (let i = 0; i < 30; i++) {
    const status = i % 3 === 0 ? 2 : 1;
    const response = await postJson(`${server.url}/api/products`, { name: `p${i}`, priceInCents: i, status });
    byStatus[status].unshift(((await response.json()) as { id: number }).id);
  }
});
after(() => server.stop());

const LINK = /^<(\/api\/products\?limit=(\d+)&status=([12])&cursor=([A-Za-z0-9_-]+))>; rel="next"$/;

async function walk(first: string): Promise<{ ids: number[]; links: string[] }> {
  const ids: number[] = [];
  const links: string[] = [];
  let next: string | undefined = first;
  while (next !== undefined) {
    const response = await fetch(`${server.url}${next}`);
    assert.equal(response.status, 200, next);
    const items = (await response.json()) as { id: number; status: number }[];
    ids.push(...items.map((item) => item.id));
    const link = response.headers.get('link');
    if (link !== null) links.push(link);
    next = link === null ? undefined : LINK.exec(link)?.[1];
    if (link !== null) assert.ok(next !== undefined, `Link ${link} carries the filter`);
  }
  return { ids, links };
}

test('?status=1 and ?status=2 list only that status, newest first, in keyset pages that carry the filter', async () => {
  for (const status of [1, 2] as const) {
    const { ids, links } = await walk(`/api/products?status=${status}&limit=4`);
    assert.deepEqual(ids, byStatus[status]);
    assert.ok(links.length >= 2);
    for (const link of links) assert.equal(LINK.exec(link)?.[3], String(status));
  }
});

test('a product archived during a walk of ?status=1 leaves the remaining pages of it', async () => {
  const first = await fetch(`${server.url}/api/products?status=1&limit=3`);
  const seen = ((await first.json()) as { id: number }[]).map((p) => p.id);
  const target = byStatus[1][6] as number;
  assert.equal((await patchJson(`${server.url}/api/products/${target}`, { status: 2 })).status, 200);
  const rest = await walk(LINK.exec(first.headers.get('link') ?? '')?.[1] ?? '');
  assert.deepEqual([...seen, ...rest.ids], byStatus[1].filter((id) => id !== target));
  await patchJson(`${server.url}/api/products/${target}`, { status: 1 });
});

test('a bad status is 400 invalid_query naming the parameter', async () => {
  for (const value of ['0', '3', 'active', '', '1.0', '01', '-1', '1,2', '%32%32', '+1']) {
    const response = await fetch(`${server.url}/api/products?status=${value}`);
    const problem = await assertProblem(response, 400, 'invalid_query', '/api/products');
    assert.deepEqual(problem['errors'], [{ parameter: 'status', code: 'invalid_enum', detail: 'status must be one of 1, 2' }]);
  }
});

test('a cursor issued under one filter is 400 invalid_query under another filter or none, and the other way round', async () => {
  const cursorOf = async (query: string): Promise<string> => {
    const response = await fetch(`${server.url}/api/products?${query}`);
    await response.arrayBuffer();
    return /cursor=([A-Za-z0-9_-]+)/.exec(response.headers.get('link') ?? '')?.[1] ?? '';
  };
  const archived = await cursorOf('status=2&limit=2');
  const active = await cursorOf('status=1&limit=2');
  const unfiltered = await cursorOf('limit=2');
  const refused: [string, string][] = [
    [archived, 'status=1'], [archived, ''], [active, 'status=2'], [active, ''], [unfiltered, 'status=1'], [unfiltered, 'status=2'],
  ];
  for (const [cursor, filter] of refused) {
    const response = await fetch(`${server.url}/api/products?limit=2&cursor=${cursor}${filter === '' ? '' : `&${filter}`}`);
    const problem = await assertProblem(response, 400, 'invalid_query', '/api/products');
    assert.equal((problem['errors'] as { parameter: string }[])[0]?.parameter, 'cursor');
  }
  // Under its own filter the cursor goes on where it stopped: the rest of the archived products.
  const rest = await fetch(`${server.url}/api/products?cursor=${archived}&status=2`);
  assert.equal(rest.status, 200);
  assert.equal(rest.headers.get('link'), null);
  const items = (await rest.json()) as { id: number; status: number }[];
  assert.deepEqual(items.map((item) => item.id), byStatus[2].slice(2));
  assert.deepEqual(new Set(items.map((item) => item.status)), new Set([2]));
});

test('workspaces ignore a status parameter, as any unknown parameter', async () => {
  for (const name of ['Acme', 'Globex']) {
    const created = await postJson(`${server.url}/api/workspaces`, { name });
    assert.equal(created.status, 201);
    await created.arrayBuffer();
  }
  const unfiltered = await fetch(`${server.url}/api/workspaces`);
  const listed = (await unfiltered.json()) as { name: string }[];
  assert.deepEqual(listed.map((workspace) => workspace.name), ['Globex', 'Acme']);
  const ignored = await fetch(`${server.url}/api/workspaces?status=9`);
  assert.equal(ignored.status, 200);
  assert.deepEqual(await ignored.json(), listed);
});
