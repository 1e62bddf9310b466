import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SECURITY_HEADERS } from '../../src/http/security-headers.ts';
import { assertProblem, NON_IDS } from '../support/assertions.ts';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.stop());

async function create(resource: 'products' | 'workspaces', name: string): Promise<number> {
  const body = resource === 'products' ? { name, priceInCents: 1 } : { name };
  const response = await postJson(`${server.url}/api/${resource}`, body);
  assert.equal(response.status, 201);
  return ((await response.json()) as { id: number }).id;
}

const ids = async (path: string): Promise<number[]> => ((await (await fetch(`${server.url}${path}`)).json()) as { id: number }[]).map((item) => item.id);

for (const resource of ['products', 'workspaces'] as const) {
  test(`${resource}: DELETE is 204 with no body; then the id is 404, absent from lists, and a second DELETE is 404`, async () => {
    const id = await create(resource, 'doomed');
    const kept = await create(resource, 'kept');
    const response = await fetch(`${server.url}/api/${resource}/${id}`, { method: 'DELETE' });
    assert.equal(response.status, 204);
    assert.equal(await response.text(), '');
    assert.equal(response.headers.get('content-type'), null);
    assert.equal(response.headers.get('content-length'), null);
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) assert.equal(response.headers.get(name), value, name);
    await assertProblem(await fetch(`${server.url}/api/${resource}/${id}`), 404, 'not_found', `/api/${resource}/${id}`);
    assert.equal((await fetch(`${server.url}/api/${resource}/${id}`, { method: 'HEAD' })).status, 404);
    const listed = await ids(`/api/${resource}?limit=200`);
    assert.ok(!listed.includes(id) && listed.includes(kept));
    await assertProblem(await fetch(`${server.url}/api/${resource}/${id}`, { method: 'DELETE' }), 404, 'not_found', `/api/${resource}/${id}`);
  });

  test(`${resource}: deleting the newest and creating another gives a new id, never the deleted one`, async () => {
    const newest = await create(resource, 'newest');
    assert.equal((await fetch(`${server.url}/api/${resource}/${newest}`, { method: 'DELETE' })).status, 204);
    const next = await create(resource, 'next');
    assert.ok(next > newest, `${next} > ${newest}`);
    await assertProblem(await fetch(`${server.url}/api/${resource}/${newest}`), 404, 'not_found', `/api/${resource}/${newest}`);
  });

  test(`${resource}: DELETE of an unknown or malformed id is 404`, async () => {
    for (const id of ['99999999', ...NON_IDS]) {
      await assertProblem(await fetch(`${server.url}/api/${resource}/${id}`, { method: 'DELETE' }), 404, 'not_found', `/api/${resource}/${id}`);
    }
  });
}

test('a product deleted during a paging walk is absent from the pages still to come, and nothing is repeated or skipped', async () => {
  const created: number[] = [];
  for (let i = 0; i < 12; i++) created.push(await create('products', `walk ${i}`));
  const newestFirst = [...created].reverse();
  const first = await fetch(`${server.url}/api/products?limit=4`);
  const firstIds = ((await first.json()) as { id: number }[]).map((p) => p.id);
  assert.deepEqual(firstIds, newestFirst.slice(0, 4));
  // Delete one on a page not yet read, and the very item the cursor points below.
  const doomed = [newestFirst[5] as number, newestFirst[3] as number];
  for (const id of doomed) assert.equal((await fetch(`${server.url}/api/products/${id}`, { method: 'DELETE' })).status, 204);
  const walked = [...firstIds];
  let link = /<([^>]+)>/.exec(first.headers.get('link') ?? '')?.[1];
  while (link !== undefined && walked.length < 100) {
    const page = await fetch(`${server.url}${link}`);
    assert.equal(page.status, 200);
    walked.push(...((await page.json()) as { id: number }[]).map((p) => p.id));
    link = /<([^>]+)>/.exec(page.headers.get('link') ?? '')?.[1];
  }
  const walkedOwn = walked.filter((id) => created.includes(id));
  assert.deepEqual(walkedOwn, newestFirst.filter((id) => !doomed.includes(id) || firstIds.includes(id)));
  assert.ok(!walked.includes(newestFirst[5] as number));
  assert.equal(new Set(walked).size, walked.length, 'no id twice');
});

test('DELETE of an archived product is allowed: the archived rule only guards edits', async () => {
  const response = await postJson(`${server.url}/api/products`, { name: 'old', priceInCents: 1, status: 2 });
  const { id } = (await response.json()) as { id: number };
  assert.equal((await fetch(`${server.url}/api/products/${id}`, { method: 'DELETE' })).status, 204);
});
