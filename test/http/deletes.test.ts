import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SECURITY_HEADERS } from '../../src/http/security-headers.ts';
import type { Resource } from '../../src/resources/resource.ts';
import { assertProblem, NON_IDS } from '../support/assertions.ts';
import { createAt } from '../support/resource-requests.ts';
import { ALL_RESOURCES } from '../support/resources.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

// DELETE on every resource served, the test resource included (docs/api.md, Requests that delete).
let server: TestServer;
before(async () => {
  server = await startTestServer({}, { resources: ALL_RESOURCES });
});
after(() => server.stop());

const create = async (resource: Resource, n: number): Promise<number> => (await createAt(server.url, resource, n)).id;

const ids = async (path: string): Promise<number[]> => ((await (await fetch(`${server.url}${path}`)).json()) as { id: number }[]).map((item) => item.id);

for (const resource of ALL_RESOURCES) {
  const { path, plural } = resource;
  test(`${plural}: DELETE is 204 with no body; then the id is 404, absent from lists, and a second DELETE is 404`, async () => {
    const id = await create(resource, 1);
    const kept = await create(resource, 2);
    const response = await fetch(`${server.url}${path}/${id}`, { method: 'DELETE' });
    assert.equal(response.status, 204);
    assert.equal(await response.text(), '');
    assert.equal(response.headers.get('content-type'), null);
    assert.equal(response.headers.get('content-length'), null);
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) assert.equal(response.headers.get(name), value, name);
    await assertProblem(await fetch(`${server.url}${path}/${id}`), 404, 'not_found', `${path}/${id}`);
    assert.equal((await fetch(`${server.url}${path}/${id}`, { method: 'HEAD' })).status, 404);
    const listed = await ids(`${path}?limit=200`);
    assert.ok(!listed.includes(id) && listed.includes(kept));
    await assertProblem(await fetch(`${server.url}${path}/${id}`, { method: 'DELETE' }), 404, 'not_found', `${path}/${id}`);
  });

  test(`${plural}: deleting the newest and creating another gives a new id, never the deleted one`, async () => {
    const newest = await create(resource, 3);
    assert.equal((await fetch(`${server.url}${path}/${newest}`, { method: 'DELETE' })).status, 204);
    const next = await create(resource, 4);
    assert.ok(next > newest, `${next} > ${newest}`);
    await assertProblem(await fetch(`${server.url}${path}/${newest}`), 404, 'not_found', `${path}/${newest}`);
  });

  test(`${plural}: DELETE of an unknown or malformed id is 404`, async () => {
    for (const id of ['99999999', ...NON_IDS]) {
      await assertProblem(await fetch(`${server.url}${path}/${id}`, { method: 'DELETE' }), 404, 'not_found', `${path}/${id}`);
    }
  });

  test(`${plural}: one deleted during a paging walk is absent from the pages still to come, and nothing is repeated or skipped`, async () => {
    const created: number[] = [];
    for (let i = 0; i < 12; i++) created.push(await create(resource, i));
    const newestFirst = [...created].reverse();
    const first = await fetch(`${server.url}${path}?limit=4`);
    const firstIds = ((await first.json()) as { id: number }[]).map((item) => item.id);
    assert.deepEqual(firstIds, newestFirst.slice(0, 4));
    // Delete one on a page not yet read, and the very item the cursor points below.
    const doomed = [newestFirst[5] as number, newestFirst[3] as number];
    for (const id of doomed) assert.equal((await fetch(`${server.url}${path}/${id}`, { method: 'DELETE' })).status, 204);
    const walked = [...firstIds];
    let link = /<([^>]+)>/.exec(first.headers.get('link') ?? '')?.[1];
    while (link !== undefined && walked.length < 100) {
      const page = await fetch(`${server.url}${link}`);
      assert.equal(page.status, 200);
      walked.push(...((await page.json()) as { id: number }[]).map((item) => item.id));
      link = /<([^>]+)>/.exec(page.headers.get('link') ?? '')?.[1];
    }
    const walkedOwn = walked.filter((id) => created.includes(id));
    assert.deepEqual(walkedOwn, newestFirst.filter((id) => !doomed.includes(id) || firstIds.includes(id)));
    assert.ok(!walked.includes(newestFirst[5] as number));
    assert.equal(new Set(walked).size, walked.length, 'no id twice');
  });
}
