import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { Resource } from '../../src/resources/resource.ts';
import { assertProblem } from '../support/assertions.ts';
import { changeOf, type Json, tableOf } from '../support/resource-requests.ts';
import { ALL_RESOURCES, validBody } from '../support/resources.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

// docs/api.md, Content codings: a request body with a Content-Encoding other than identity is 415 unsupported_media_type
// with Accept-Encoding: identity, and nothing is created or changed; on every resource served, the test resource included.

let server: TestServer;
before(async () => {
  server = await startTestServer({}, { resources: ALL_RESOURCES });
});
after(() => server.stop());

// The codings refused, each with the body sent under it: plain JSON mislabelled, and a real gzip body.
function refusedCodings(json: string): [string, string | Buffer][] {
  return [
    ['br', json],
    ['gzip', gzipSync(json)],
    ['GZIP', gzipSync(json)],
    ['deflate', json],
    ['x-custom', json],
    ['gzip, identity', gzipSync(json)],
    ['identity, gzip', gzipSync(json)],
    ['identity,, br', json],
  ];
}
const ACCEPTED = ['identity', 'IDENTITY', ' Identity ', 'identity, identity', '', ','];

function send(method: string, url: string, body: string | Buffer, headers: Record<string, string>): Promise<Response> {
  return fetch(url, { method, headers: { 'content-type': 'application/json', ...headers }, body });
}

async function assertCodingRefused(response: Response, path: string, at: string): Promise<void> {
  const problem = await assertProblem(response, 415, 'unsupported_media_type', path);
  assert.equal(response.headers.get('accept-encoding'), 'identity', at);
  assert.match(String(problem['detail']), /Content-Encoding/, `${at}: the detail names the content coding`);
}

async function create(resource: Resource): Promise<{ url: string; path: string; etag: string; body: Json }> {
  const response = await send('POST', `${server.url}${resource.path}`, JSON.stringify(validBody(resource)), {});
  assert.equal(response.status, 201);
  const path = response.headers.get('location') ?? '';
  return { url: `${server.url}${path}`, path, etag: response.headers.get('etag') ?? '', body: (await response.json()) as Json };
}

for (const resource of ALL_RESOURCES) {
  const { path } = resource;

  test(`POST ${path}: a body with a content coding is 415 with Accept-Encoding: identity, and creates nothing`, async () => {
    const before = await server.database.countRows(tableOf(resource));
    for (const [coding, body] of refusedCodings(JSON.stringify(validBody(resource)))) {
      await assertCodingRefused(await send('POST', `${server.url}${path}`, body, { 'content-encoding': coding }), path, coding);
      // Refused before the key is claimed or anything stored: the same key works once the coding is gone.
      const keyed = await send('POST', `${server.url}${path}`, body, { 'content-encoding': coding, 'idempotency-key': `coded-${resource.plural}-${coding}` });
      await assertCodingRefused(keyed, path, `${coding} with an Idempotency-Key`);
    }
    assert.equal(await server.database.countRows(tableOf(resource)), before, 'no row was created');
    assert.equal(await server.database.countRows('idempotency_keys'), 0, 'no key was stored');
  });

  test(`PATCH ${path}/{id}: a body with a content coding is 415 with Accept-Encoding: identity, and changes nothing`, async () => {
    const stored = await create(resource);
    for (const [coding, body] of refusedCodings(JSON.stringify(changeOf(resource, stored.body)))) {
      const response = await send('PATCH', stored.url, body, { 'content-encoding': coding, 'content-type': 'application/merge-patch+json' });
      await assertCodingRefused(response, stored.path, coding);
    }
    const now = await fetch(stored.url);
    assert.equal(now.headers.get('etag'), stored.etag);
    assert.deepEqual(await now.json(), stored.body);
  });

  test(`${path}: identity, in any letter case or repeated, and an empty Content-Encoding are no coding at all`, async () => {
    for (const coding of ACCEPTED) {
      const created = await send('POST', `${server.url}${path}`, JSON.stringify(validBody(resource)), { 'content-encoding': coding });
      assert.equal(created.status, 201, JSON.stringify(coding));
      const url = `${server.url}${created.headers.get('location')}`;
      const made = (await created.json()) as Json;
      const change = changeOf(resource, made);
      const patched = await send('PATCH', url, JSON.stringify(change), { 'content-encoding': coding });
      assert.equal(patched.status, 200, JSON.stringify(coding));
      const changed = (await patched.json()) as Json;
      assert.deepEqual(changed, { ...made, ...change, updatedAt: changed['updatedAt'] });
    }
  });

  test(`${path}: the content coding is judged before the media type, and each 415 says which it was`, async () => {
    const stored = await create(resource);
    const body = JSON.stringify(validBody(resource));
    const both = await send('POST', `${server.url}${path}`, body, { 'content-encoding': 'gzip', 'content-type': 'text/plain' });
    await assertCodingRefused(both, path, 'gzip and text/plain');
    const patchBoth = await send('PATCH', stored.url, '{}', { 'content-encoding': 'br', 'content-type': 'text/plain' });
    await assertCodingRefused(patchBoth, stored.path, 'PATCH br and text/plain');
    for (const [method, url, at] of [['POST', `${server.url}${path}`, path], ['PATCH', stored.url, stored.path]] as const) {
      const mediaType = await send(method, url, body, { 'content-type': 'text/plain' });
      const problem = await assertProblem(mediaType, 415, 'unsupported_media_type', at);
      assert.match(String(problem['detail']), /application\/json/, `${method}: the detail names the media type`);
      assert.doesNotMatch(String(problem['detail']), /Content-Encoding/, `${method}: and not the coding`);
      assert.equal(mediaType.headers.get('accept-encoding'), 'identity', `${method}: every 415 says what codings are accepted`);
    }
  });

  test(`${path}: a coded body is refused on its headers, before it is read: even an empty one`, async () => {
    const empty = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
    await assertCodingRefused(empty, path, 'no body');
  });
}
