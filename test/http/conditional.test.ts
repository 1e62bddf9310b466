import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SECURITY_HEADERS } from '../../src/http/security-headers.ts';
import type { Resource } from '../../src/resources/resource.ts';
import { assertProblem } from '../support/assertions.ts';
import { changeOf, createAt, type Json } from '../support/resource-requests.ts';
import { ALL_RESOURCES, validBody } from '../support/resources.ts';
import { patchJson, postJson, startTestServer, type TestServer } from '../support/server.ts';

// ETags and conditional requests (docs/api.md) on every resource served, the test resource included.
let server: TestServer;
before(async () => {
  server = await startTestServer({}, { resources: ALL_RESOURCES });
});
after(() => server.stop());

async function create(resource: Resource): Promise<{ url: string; etag: string; body: Json }> {
  const made = await createAt(server.url, resource);
  return { url: `${server.url}${made.path}`, etag: made.etag, body: made.body };
}

for (const resource of ALL_RESOURCES) {
  const { plural } = resource;
  test(`${plural}: every response with one representation has a strong ETag that moves with every change`, async () => {
    const { url, etag, body } = await create(resource);
    assert.match(etag, /^"[^"]+"$/, 'strong: no W/ prefix');
    const get = await fetch(url);
    assert.equal(get.headers.get('etag'), etag);
    await get.arrayBuffer();
    const head = await fetch(url, { method: 'HEAD' });
    assert.equal(head.headers.get('etag'), etag);
    const seen = new Set([etag]);
    let current = body;
    for (const n of [1, 2, 3]) {
      const patched = await patchJson(url, changeOf(resource, current, n));
      current = (await patched.json()) as Json;
      const next = patched.headers.get('etag') ?? '';
      assert.ok(!seen.has(next), `${next} is new`);
      seen.add(next);
      assert.equal((await fetch(url, { method: 'HEAD' })).headers.get('etag'), next);
    }
  });

  test(`${plural}: If-None-Match with the current tag is 304 with the ETag and security headers and no body`, async () => {
    const { url, etag } = await create(resource);
    for (const method of ['GET', 'HEAD']) {
      for (const header of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
        const response = await fetch(url, { method, headers: { 'if-none-match': header } });
        assert.equal(response.status, 304, `${method} ${header}`);
        assert.equal(response.headers.get('etag'), etag);
        for (const [name, value] of Object.entries(SECURITY_HEADERS)) assert.equal(response.headers.get(name), value, name);
        assert.match(response.headers.get('x-request-id') ?? '', /./);
        assert.equal(response.headers.get('content-type'), null);
        assert.equal(await response.text(), '');
      }
    }
    const stale = await fetch(url, { headers: { 'if-none-match': '"0"' } });
    assert.equal(stale.status, 200);
    assert.equal(stale.headers.get('etag'), etag);
    await stale.arrayBuffer();
  });

  test(`${plural}: PATCH and DELETE with a stale If-Match are 412 and change nothing`, async () => {
    const { url, etag, body } = await create(resource);
    const changed = await patchJson(url, changeOf(resource, body));
    const current = changed.headers.get('etag') ?? '';
    const representation = (await changed.json()) as Json;
    const stalePatch = await patchJson(url, changeOf(resource, representation), { 'if-match': etag });
    const problem = await assertProblem(stalePatch, 412, 'precondition_failed', new URL(url).pathname);
    assert.equal(problem['title'], 'Precondition Failed');
    await assertProblem(await fetch(url, { method: 'DELETE', headers: { 'if-match': etag } }), 412, 'precondition_failed', new URL(url).pathname);
    await assertProblem(await patchJson(url, changeOf(resource, representation, 2), { 'if-match': `W/${current}` }), 412, 'precondition_failed', new URL(url).pathname);
    const now = await fetch(url);
    assert.equal(now.headers.get('etag'), current);
    assert.deepEqual(await now.json(), representation);
    assert.notDeepEqual(representation, body);
  });

  test(`${plural}: If-Match with the current tag, in a list, or * lets PATCH and DELETE through`, async () => {
    const { url, etag, body } = await create(resource);
    const listed = await patchJson(url, changeOf(resource, body), { 'if-match': `"nope", ${etag}` });
    assert.equal(listed.status, 200);
    const next = listed.headers.get('etag') ?? '';
    const any = await patchJson(url, changeOf(resource, (await listed.json()) as Json, 2), { 'if-match': '*' });
    assert.equal(any.status, 200);
    const last = any.headers.get('etag') ?? '';
    assert.notEqual(last, next);
    await any.arrayBuffer();
    const deleted = await fetch(url, { method: 'DELETE', headers: { 'if-match': last } });
    assert.equal(deleted.status, 204);
    await assertProblem(await fetch(url, { method: 'DELETE', headers: { 'if-match': '*' } }), 404, 'not_found', new URL(url).pathname);
  });

  test(`${plural}: a malformed If-Match or If-None-Match is 400 invalid_header naming it`, async () => {
    const { url, body } = await create(resource);
    const path = new URL(url).pathname;
    for (const header of ['1', 'W/1', '"a" "b"', '*, "1"', '"unterminated', 'W/ "1"']) {
      const problem = await assertProblem(await patchJson(url, changeOf(resource, body), { 'if-match': header }), 400, 'invalid_header', path);
      assert.deepEqual((problem['errors'] as { parameter: string }[]).map((e) => e.parameter), ['If-Match']);
      await assertProblem(await fetch(url, { method: 'DELETE', headers: { 'if-match': header } }), 400, 'invalid_header', path);
      await assertProblem(await fetch(url, { headers: { 'if-none-match': header } }), 400, 'invalid_header', path);
    }
    assert.equal((await fetch(url)).status, 200, 'nothing was deleted');
  });

  test(`${plural}: the ETag of a 201 is replayed with the stored response for the same Idempotency-Key`, async () => {
    const headers = { 'idempotency-key': `etag-replay-${plural}` };
    const first = await postJson(`${server.url}${resource.path}`, validBody(resource, 4), headers);
    const made = (await first.json()) as Json;
    await patchJson(`${server.url}${first.headers.get('location')}`, changeOf(resource, made));
    const again = await postJson(`${server.url}${resource.path}`, validBody(resource, 4), headers);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.headers.get('etag'), first.headers.get('etag'));
    assert.deepEqual(await again.json(), made);
  });
}
