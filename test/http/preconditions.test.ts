import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import type { Resource } from '../../src/resources/resource.ts';
import { assertProblem } from '../support/assertions.ts';
import { changeOf, createAt, type Json, tableOf } from '../support/resource-requests.ts';
import { ALL_RESOURCES } from '../support/resources.ts';
import { patchJson, startTestServer, type TestServer } from '../support/server.ts';

// RFC 9110 §13.2.2 on every method of every resource served, the test resource included (docs/api.md,
// ETags and conditional requests): If-Match first (strong comparison), then If-None-Match (weak
// comparison); If-Unmodified-Since and If-Modified-Since are ignored.

let server: TestServer;
before(async () => {
  server = await startTestServer({}, { resources: ALL_RESOURCES });
});
after(() => server.stop());

// Each header value as a function of the current tag, and whether it names that tag (for If-Match,
// by strong comparison; for If-None-Match, by weak comparison).
const IF_MATCH: readonly { label: string; value: (tag: string) => string | undefined; passes: boolean }[] = [
  { label: 'absent', value: () => undefined, passes: true },
  { label: 'current', value: (tag) => tag, passes: true },
  { label: 'a list holding current', value: (tag) => `"0", ${tag}`, passes: true },
  { label: '*', value: () => '*', passes: true },
  { label: 'stale', value: () => '"0"', passes: false },
  { label: 'weak current', value: (tag) => `W/${tag}`, passes: false },
];
const IF_NONE_MATCH: readonly { label: string; value: (tag: string) => string | undefined; hits: boolean }[] = [
  { label: 'absent', value: () => undefined, hits: false },
  { label: 'stale', value: () => '"0", W/"999"', hits: false },
  { label: 'current', value: (tag) => tag, hits: true },
  { label: 'weak current', value: (tag) => `W/${tag}`, hits: true },
  { label: 'a list holding current', value: (tag) => `"0" , ${tag}`, hits: true },
  { label: '*', value: () => '*', hits: true },
];

interface Stored {
  url: string;
  path: string;
  tag: string;
  body: Json;
}

async function create(resource: Resource): Promise<Stored> {
  const made = await createAt(server.url, resource);
  return { url: `${server.url}${made.path}`, path: made.path, tag: made.etag, body: made.body };
}

function conditions(tag: string, ifMatch: (typeof IF_MATCH)[number], ifNoneMatch: (typeof IF_NONE_MATCH)[number]): Record<string, string> {
  const headers: Record<string, string> = {};
  const match = ifMatch.value(tag);
  const noneMatch = ifNoneMatch.value(tag);
  if (match !== undefined) headers['if-match'] = match;
  if (noneMatch !== undefined) headers['if-none-match'] = noneMatch;
  return headers;
}

// The resource is exactly as it was, and the table holds as many rows as before.
async function assertUnchanged(resource: Resource, stored: Stored, rows: number, at: string): Promise<void> {
  const now = await fetch(stored.url);
  assert.equal(now.status, 200, `${at}: still there`);
  assert.equal(now.headers.get('etag'), stored.tag, `${at}: same ETag`);
  assert.deepEqual(await now.json(), stored.body, `${at}: same representation`);
  assert.equal(await server.database.countRows(tableOf(resource)), rows, `${at}: same number of rows`);
}

for (const resource of ALL_RESOURCES) {
  const { plural } = resource;
  for (const method of ['GET', 'HEAD'] as const) {
    test(`${plural}: ${method} evaluates If-Match, then If-None-Match: 412, 304 or 200`, async () => {
      const stored = await create(resource);
      for (const ifMatch of IF_MATCH) {
        for (const ifNoneMatch of IF_NONE_MATCH) {
          const at = `${method} If-Match ${ifMatch.label}, If-None-Match ${ifNoneMatch.label}`;
          const response = await fetch(stored.url, { method, headers: conditions(stored.tag, ifMatch, ifNoneMatch) });
          const expected = !ifMatch.passes ? 412 : ifNoneMatch.hits ? 304 : 200;
          assert.equal(response.status, expected, at);
          if (expected === 412 && method === 'GET') {
            await assertProblem(response, 412, 'precondition_failed', stored.path);
            continue;
          }
          if (expected === 412) assert.equal(response.headers.get('content-type'), 'application/problem+json', at);
          else assert.equal(response.headers.get('etag'), stored.tag, at);
          const text = await response.text();
          if (expected === 200 && method === 'GET') assert.deepEqual(JSON.parse(text), stored.body, at);
          else assert.equal(text, '', `${at}: no body`);
        }
      }
    });
  }

  test(`${plural}: PATCH evaluates If-Match, then If-None-Match; a failure is 412 and changes nothing`, async () => {
    for (const ifMatch of IF_MATCH) {
      for (const ifNoneMatch of IF_NONE_MATCH) {
        const at = `PATCH If-Match ${ifMatch.label}, If-None-Match ${ifNoneMatch.label}`;
        const stored = await create(resource);
        const rows = await server.database.countRows(tableOf(resource));
        const change = changeOf(resource, stored.body);
        const response = await patchJson(stored.url, change, conditions(stored.tag, ifMatch, ifNoneMatch));
        if (ifMatch.passes && !ifNoneMatch.hits) {
          assert.equal(response.status, 200, at);
          const changed = (await response.json()) as Json;
          assert.deepEqual(changed, { ...stored.body, ...change, updatedAt: changed['updatedAt'] }, at);
          assert.notEqual(response.headers.get('etag'), stored.tag, `${at}: the ETag moved`);
          continue;
        }
        const problem = await assertProblem(response, 412, 'precondition_failed', stored.path);
        // One detail, true whichever field failed.
        assert.match(String(problem['detail']), /If-Match .*If-None-Match .*nothing was changed/, at);
        await assertUnchanged(resource, stored, rows, at);
      }
    }
  });

  test(`${plural}: DELETE evaluates If-Match, then If-None-Match; a failure is 412 and deletes nothing`, async () => {
    for (const ifMatch of IF_MATCH) {
      for (const ifNoneMatch of IF_NONE_MATCH) {
        const at = `DELETE If-Match ${ifMatch.label}, If-None-Match ${ifNoneMatch.label}`;
        const stored = await create(resource);
        const rows = await server.database.countRows(tableOf(resource));
        const response = await fetch(stored.url, { method: 'DELETE', headers: conditions(stored.tag, ifMatch, ifNoneMatch) });
        if (ifMatch.passes && !ifNoneMatch.hits) {
          assert.equal(response.status, 204, at);
          assert.equal((await fetch(stored.url)).status, 404, `${at}: deleted`);
          assert.equal(await server.database.countRows(tableOf(resource)), rows - 1, `${at}: one row fewer`);
          continue;
        }
        await assertProblem(response, 412, 'precondition_failed', stored.path);
        await assertUnchanged(resource, stored, rows, at);
      }
    }
  });

  test(`${plural}: a resource that does not exist is 404 on every method, whatever the preconditions say`, async () => {
    const gone = await create(resource);
    assert.equal((await fetch(gone.url, { method: 'DELETE' })).status, 204);
    for (const headers of [{ 'if-match': '*' }, { 'if-match': gone.tag }, { 'if-none-match': '*' }, { 'if-none-match': gone.tag }, { 'if-match': '"0"', 'if-none-match': '*' }]) {
      for (const method of ['GET', 'HEAD', 'PATCH', 'DELETE']) {
        const init = method === 'PATCH' ? { method, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(changeOf(resource, gone.body)) } : { method, headers };
        const response = await fetch(gone.url, init);
        assert.equal(response.status, 404, `${method} ${JSON.stringify(headers)}`);
        await response.arrayBuffer();
      }
    }
  });

  test(`${plural}: a malformed If-Match or If-None-Match is 400 invalid_header on every method, and changes nothing`, async () => {
    const stored = await create(resource);
    const rows = await server.database.countRows(tableOf(resource));
    for (const name of ['If-Match', 'If-None-Match']) {
      for (const value of ['3', 'W/3', '"a" "b"', '*, "1"']) {
        for (const method of ['GET', 'PATCH', 'DELETE']) {
          const headers = { [name]: value, 'content-type': 'application/json' };
          const response = await fetch(stored.url, method === 'PATCH' ? { method, headers, body: JSON.stringify(changeOf(resource, stored.body)) } : { method, headers });
          const problem = await assertProblem(response, 400, 'invalid_header', stored.path);
          assert.deepEqual((problem['errors'] as { parameter: string }[]).map((error) => error.parameter), [name], `${method} ${name}: ${value}`);
        }
      }
    }
    await assertUnchanged(resource, stored, rows, 'after malformed preconditions');
    // Judged before the resource is looked up: an unknown id with a malformed field is 400 too.
    const missing = `${resource.path}/999999999`;
    for (const method of ['GET', 'HEAD', 'PATCH', 'DELETE']) {
      const headers = { 'if-none-match': 'W/3', 'content-type': 'application/json' };
      const response = await fetch(`${server.url}${missing}`, method === 'PATCH' ? { method, headers, body: '{}' } : { method, headers });
      assert.equal(response.status, 400, `${method} ${missing}`);
      await response.arrayBuffer();
    }
  });

  test(`${plural}: If-Unmodified-Since and If-Modified-Since are ignored (no Last-Modified is sent)`, async () => {
    const stored = await create(resource);
    const past = 'Sat, 01 Jan 2000 00:00:00 GMT';
    const future = 'Fri, 01 Jan 2100 00:00:00 GMT';
    const read = await fetch(stored.url, { headers: { 'if-modified-since': future, 'if-unmodified-since': past } });
    assert.equal(read.status, 200);
    assert.equal(read.headers.get('last-modified'), null);
    await read.arrayBuffer();
    const patched = await patchJson(stored.url, changeOf(resource, stored.body), { 'if-unmodified-since': past });
    assert.equal(patched.status, 200);
    await patched.arrayBuffer();
  });

  test(`${plural}: If-None-Match on a change is evaluated in its transaction: of concurrent PATCHes that each refuse the next version, exactly one applies`, async () => {
    for (let round = 0; round < 5; round++) {
      const stored = await create(resource);
      // The version after one change (docs/api.md, ETags are the row's version).
      const next = `"${Number(JSON.parse(stored.tag)) + 1}"`;
      // Each racer's patch changes the stored resource, so whichever applies first moves the version.
      const statuses = await burst(Array.from({ length: 10 }, (_, i) => patchRequest(stored.path, JSON.stringify(changeOf(resource, stored.body, i + 1)), next)));
      assert.deepEqual(statuses.sort(), [200, ...Array<number>(9).fill(412)], `round ${round}`);
      assert.equal((await fetch(stored.url, { method: 'HEAD' })).headers.get('etag'), next);
    }
  });
}

function patchRequest(path: string, body: string, ifNoneMatch: string): string {
  return `PATCH ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n` +
    `If-None-Match: ${ifNoneMatch}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

// Sends every request but its last byte, waits for the server to have read them, then sends the
// last bytes at once, so the requests' transactions overlap; resolves with each answer's status.
// (How long the server takes to read the heads only changes how much they overlap, never the answer.)
async function burst(requests: readonly string[]): Promise<number[]> {
  const { hostname, port } = new URL(server.url);
  const sockets = await Promise.all(
    requests.map((request) => new Promise<Socket>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => socket.write(request.slice(0, -1), () => resolve(socket)));
      socket.once('error', reject);
    })),
  );
  const answers = sockets.map((socket) => new Promise<number>((resolve) => {
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('close', () => resolve(Number(Buffer.concat(received).toString('latin1').split(' ')[1])));
  }));
  await new Promise((resolve) => setTimeout(resolve, 50));
  for (const [i, socket] of sockets.entries()) socket.write(requests[i]?.slice(-1) ?? '');
  return Promise.all(answers);
}
