import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ERRORS } from '../../src/http/errors.ts';
import { ConformanceChecker } from '../support/schema-conformance.ts';
import { halfSentRequest, type RawResponse, rawRequest } from '../support/raw-http.ts';
import { patchJson, postJson, startTestServer, type TestServer } from '../support/server.ts';

// Every operation and every client error of the contract, produced by the real server and checked
// (status, media type, body and documented headers) against the document that server serves.
const TOKEN = 'conformance-token-0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const RESOURCES = [
  { path: '/api/products', body: { name: 'Desk lamp', priceInCents: 1999 } },
  { path: '/api/workspaces', body: { name: 'Acme' } },
];
type Json = Record<string, unknown>;

let server: TestServer;
let document: Json;
let checker: ConformanceChecker;
const fieldCodes = new Set<string>();
const parameterCodes = new Set<string>();

before(async () => {
  server = await startTestServer({ SVC_API_TOKEN: TOKEN, SVC_BODY_LIMIT_BYTES: '1024' });
  document = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as Json;
  checker = new ConformanceChecker(document);
});
after(() => server.stop());

const get = (path: string, init: RequestInit = {}): Promise<Response> => fetch(`${server.url}${path}`, init);
const post = (path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
  postJson(`${server.url}${path}`, body, { ...AUTH, ...headers });
const patch = (path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
  patchJson(`${server.url}${path}`, body, { ...AUTH, ...headers });
const remove = (path: string, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${server.url}${path}`, { method: 'DELETE', headers: { ...AUTH, ...headers } });

// Remembers the codes of a problem's `errors`, to prove the documented code lists are exact.
function noteErrors(body: unknown): void {
  for (const entry of ((body as Json | undefined)?.['errors'] as Json[] | undefined) ?? []) {
    (entry['pointer'] !== undefined ? fieldCodes : parameterCodes).add(String(entry['code']));
  }
}

async function expectStatus(method: string, pattern: string, res: Promise<Response>, status: number): Promise<Json> {
  const checked = await checker.check(method, pattern, await res);
  assert.equal(checked.status, status, `${method} ${pattern}`);
  noteErrors(checked.body);
  return checked.body as Json;
}

test('readiness, the document itself and its page conform, with HEAD', async () => {
  await expectStatus('GET', '/api/ping', get('/api/ping'), 200);
  await expectStatus('HEAD', '/api/ping', get('/api/ping', { method: 'HEAD' }), 200);
  await expectStatus('GET', '/api/openapi.json', get('/api/openapi.json'), 200);
  await expectStatus('GET', '/api/docs', get('/api/docs'), 200);
  await expectStatus('HEAD', '/api/docs', get('/api/docs', { method: 'HEAD' }), 200);
});

for (const { path, body } of RESOURCES) {
  const item = `${path}/{id}`;
  test(`${path}: create, replay, list pages, read, HEAD and 404 conform`, async () => {
    await expectStatus('POST', path, post(path, body), 201);
    const key = { 'idempotency-key': `key-${path}` };
    const first = await expectStatus('POST', path, post(path, body, key), 201);
    const replayed = await post(path, body, key);
    assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(await expectStatus('POST', path, Promise.resolve(replayed), 201), first);
    const page = await get(`${path}?limit=1`);
    const link = /^<([^>]+)>; rel="next"$/.exec(page.headers.get('link') ?? '')?.[1];
    await expectStatus('GET', path, Promise.resolve(page), 200);
    assert.ok(link !== undefined, 'a Link to the next page');
    await expectStatus('GET', path, get(link), 200);
    await expectStatus('HEAD', path, get(path, { method: 'HEAD' }), 200);
    await expectStatus('GET', item, get(`${path}/${String(first['id'])}`), 200);
    await expectStatus('HEAD', item, get(`${path}/${String(first['id'])}`, { method: 'HEAD' }), 200);
    await expectStatus('GET', item, get(`${path}/999999`), 404);
    await expectStatus('GET', item, get(`${path}/abc`), 404);
  });

  test(`${path}: every client error of a list and a create conforms`, async () => {
    for (const query of ['limit=0', 'limit=abc', 'limit=201', 'cursor=bad!']) {
      await expectStatus('GET', path, get(`${path}?${query}`), 400);
    }
    await expectStatus('POST', path, post(path, '{"name":'), 400);
    await expectStatus('POST', path, post(path, ''), 400);
    await expectStatus('POST', path, post(path, body, { 'idempotency-key': 'k'.repeat(256) }), 400);
    await expectStatus('POST', path, postJson(`${server.url}${path}`, body), 401);
    await expectStatus('POST', path, postJson(`${server.url}${path}`, body, { authorization: 'Bearer wrong-token-0123456789' }), 401);
    await expectStatus('POST', path, post(path, { name: 'x'.repeat(2_000) }), 413);
    await expectStatus('POST', path, fetch(`${server.url}${path}`, { method: 'POST', headers: { ...AUTH, 'content-type': 'text/plain' }, body: '{}' }), 415);
    const gzipped = { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync(JSON.stringify(body)) };
    await expectStatus('POST', path, fetch(`${server.url}${path}`, gzipped), 415);
    await expectStatus('POST', path, post(path, { nme: 'typo' }), 422);
    await expectStatus('POST', path, post(path, [body]), 422);
    await post(path, body, { 'idempotency-key': `reuse-${path}` });
    await expectStatus('POST', path, post(path, { ...body, name: 'Other' }, { 'idempotency-key': `reuse-${path}` }), 422);
  });
}

for (const { path, body } of RESOURCES) {
  const item = `${path}/{id}`;
  test(`${path}: 304, change under both media types, delete and what follows conform`, async () => {
    const created = await post(path, body);
    const url = created.headers.get('location') ?? '';
    const etag = created.headers.get('etag') ?? '';
    await expectStatus('POST', path, Promise.resolve(created), 201);
    await expectStatus('GET', item, get(url, { headers: { 'if-none-match': etag } }), 304);
    await expectStatus('HEAD', item, get(url, { method: 'HEAD', headers: { 'if-none-match': etag } }), 304);
    const changed = await patch(url, { name: 'Renamed' }, { 'if-match': etag });
    const next = changed.headers.get('etag') ?? '';
    assert.equal((await expectStatus('PATCH', item, Promise.resolve(changed), 200))['name'], 'Renamed');
    assert.notEqual(next, etag);
    await expectStatus('PATCH', item, patch(url, {}, { 'content-type': 'application/json; charset=utf-8', 'if-match': '*' }), 200);
    await expectStatus('GET', item, get(url, { headers: { 'if-none-match': etag } }), 200);
    await expectStatus('DELETE', item, remove(url, { 'if-match': next }), 204);
    await expectStatus('GET', item, get(url), 404);
    await expectStatus('PATCH', item, patch(url, { name: 'Gone' }), 404);
    await expectStatus('DELETE', item, remove(url), 404);
  });

  test(`${path}: every client error of a read, a change and a delete conforms`, async () => {
    const url = (await post(path, body)).headers.get('location') ?? '';
    for (const header of ['1', '"a" "b"', '*, "1"']) {
      await expectStatus('GET', item, get(url, { headers: { 'if-none-match': header } }), 400);
      await expectStatus('PATCH', item, patch(url, { name: 'x' }, { 'if-match': header }), 400);
      await expectStatus('DELETE', item, remove(url, { 'if-match': header }), 400);
    }
    await expectStatus('PATCH', item, patch(url, '{"name":'), 400);
    await expectStatus('PATCH', item, patch(url, ''), 400);
    await expectStatus('PATCH', item, patchJson(`${server.url}${url}`, { name: 'x' }), 401);
    await expectStatus('DELETE', item, fetch(`${server.url}${url}`, { method: 'DELETE', headers: { authorization: 'Bearer wrong-token-0123456789' } }), 401);
    await expectStatus('PATCH', item, patch(`${path}/999999`, { name: 'x' }), 404);
    await expectStatus('PATCH', item, patch(`${path}/abc`, { name: 'x' }), 404);
    await expectStatus('DELETE', item, remove(`${path}/0`), 404);
    await expectStatus('PATCH', item, patch(url, { name: 'x' }, { 'if-match': '"0"' }), 412);
    await expectStatus('DELETE', item, remove(url, { 'if-match': '"0", W/"1"' }), 412);
    const etag = (await get(url, { method: 'HEAD' })).headers.get('etag') ?? '';
    await expectStatus('GET', item, get(url, { headers: { 'if-match': '"0"' } }), 412);
    await expectStatus('HEAD', item, get(url, { method: 'HEAD', headers: { 'if-match': `W/${etag}` } }), 412);
    await expectStatus('PATCH', item, patch(url, { name: 'x' }, { 'if-none-match': etag }), 412);
    await expectStatus('DELETE', item, remove(url, { 'if-none-match': '*' }), 412);
    for (const header of ['1', '*, "1"']) {
      await expectStatus('GET', item, get(url, { headers: { 'if-match': header } }), 400);
      await expectStatus('PATCH', item, patch(url, { name: 'x' }, { 'if-none-match': header }), 400);
      await expectStatus('DELETE', item, remove(url, { 'if-none-match': header }), 400);
    }
    await expectStatus('PATCH', item, patch(url, { name: 'x'.repeat(2_000) }), 413);
    await expectStatus('PATCH', item, patch(url, { name: 'x' }, { 'content-type': 'application/json-patch+json' }), 415);
    await expectStatus('PATCH', item, patch(url, '{"name":"x"}', { 'content-encoding': 'br' }), 415);
    for (const invalid of [{ name: null }, { name: '   ', nme: 'typo' }, [], 'null']) await expectStatus('PATCH', item, patch(url, invalid), 422);
    await expectStatus('GET', item, get(url), 200);
  });
}

test('409 product_archived conforms; a product may be archived, and unarchived with an edit', async () => {
  const url = (await post('/api/products', { name: 'Chair', priceInCents: 4999, status: 2 })).headers.get('location') ?? '';
  const refused = await expectStatus('PATCH', '/api/products/{id}', patch(url, { priceInCents: 1 }), 409);
  assert.equal(refused['code'], 'product_archived');
  await expectStatus('PATCH', '/api/products/{id}', patch(url, { name: 'Stool', status: 2 }), 409);
  const edited = await expectStatus('PATCH', '/api/products/{id}', patch(url, { name: 'Stool', status: 1 }), 200);
  assert.deepEqual([edited['name'], edited['status']], ['Stool', 1]);
  assert.equal((await expectStatus('PATCH', '/api/products/{id}', patch(url, { status: 2 }), 200))['status'], 2);
});

test('a list filtered by status pages with the filter carried in Link; a bad filter or a cursor of another filter is 400', async () => {
  for (const name of ['Old stock', 'Older stock']) await post('/api/products', { name, priceInCents: 1, status: 2 });
  const page = await get('/api/products?status=2&limit=1');
  const link = /^<([^>]+)>; rel="next"$/.exec(page.headers.get('link') ?? '')?.[1] ?? '';
  const first = (await expectStatus('GET', '/api/products', Promise.resolve(page), 200)) as unknown as Json[];
  assert.match(link, /^\/api\/products\?limit=1&status=2&cursor=[\w-]+$/);
  const second = (await expectStatus('GET', '/api/products', get(link), 200)) as unknown as Json[];
  assert.deepEqual([...first, ...second].map((product) => product['status']), [2, 2]);
  for (const query of ['status=3', 'status=archived', 'status=']) await expectStatus('GET', '/api/products', get(`/api/products?${query}`), 400);
  const problem = await expectStatus('GET', '/api/products', get(link.replace('status=2', 'status=1')), 400);
  assert.deepEqual((problem['errors'] as Json[]).map((e) => e['code']), ['invalid_cursor']);
  await expectStatus('GET', '/api/products', get(link.replace('&status=2', '')), 400);
});

test('every documented field error code is produced, and no other', async () => {
  const bodies = [
    {},
    { name: 1, priceInCents: '1', status: '1' },
    { name: '   ', priceInCents: 1.5, status: 3 },
    { name: 'x'.repeat(201), priceInCents: -1 },
    { name: 'a\u0001b', priceInCents: 2_147_483_648, price_in_cents: 1 },
  ];
  for (const body of bodies) await expectStatus('POST', '/api/products', post('/api/products', body), 422);
  const schemas = (document['components'] as Json)['schemas'] as Record<string, { properties: Record<string, { enum: string[] }> }>;
  assert.deepEqual([...fieldCodes].sort(), [...(schemas['FieldError']?.properties['code']?.enum ?? [])].sort());
  assert.deepEqual([...parameterCodes].sort(), [...(schemas['ParameterError']?.properties['code']?.enum ?? [])].sort());
});

// A raw HTTP/1.1 response as a fetch Response, so the checker can read it.
const responseOf = (raw: RawResponse): Response => new Response(raw.body, { status: raw.status, headers: raw.headers });

// Sends a keyed create whose body is only half written, so its key stays claimed until `finish`.
function halfSentCreate(path: string, key: string, body: string): Promise<{ finish(): Promise<RawResponse> }> {
  const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${TOKEN}\r\n` +
    `Idempotency-Key: ${key}\r\nContent-Length: ${body.length}\r\nConnection: close`;
  return halfSentRequest(server.url, head, body);
}

for (const { path, body } of RESOURCES) {
  test(`${path}: 409 idempotency_key_in_use conforms while a same-key request is still arriving`, async () => {
    let conflict = false;
    // The server shares this process, so either request may be dispatched first: whichever comes
    // second while the other is unfinished gets 409. Bounded retries in case they did not overlap.
    for (let round = 0; round < 5 && !conflict; round++) {
      const first = await halfSentCreate(path, `in-flight-${round}`, JSON.stringify(body));
      const second = await checker.check('POST', path, await post(path, body, { 'idempotency-key': `in-flight-${round}` }));
      const firstChecked = await checker.check('POST', path, responseOf(await first.finish()));
      const statuses = [firstChecked.status, second.status].sort();
      conflict = statuses.includes(409);
      assert.deepEqual(statuses, conflict ? [201, 409] : [201, 201]);
    }
    assert.ok(conflict, 'the two requests never overlapped');
  });
}

test('answers outside any operation (unknown path, 405, unparseable HTTP) are documented problems', async () => {
  const problem = { $ref: '#/components/schemas/Problem' };
  const unknown = await checker.checkOutsideOperations(await get('/api/nothing-here'), problem);
  assert.equal((unknown as Json)['code'], 'not_found');
  const notAllowed = await get('/api/ping', { method: 'DELETE' });
  assert.equal(notAllowed.headers.get('allow'), 'GET, HEAD');
  assert.equal(((await checker.checkOutsideOperations(notAllowed, problem)) as Json)['code'], 'method_not_allowed');
  const unparseable = responseOf(await rawRequest(server.url, 'GARBAGE / HTTP/1.1\r\nHost: x'));
  assert.equal(((await checker.checkOutsideOperations(unparseable, problem)) as Json)['code'], 'bad_request');
  const tooLarge = responseOf(await rawRequest(server.url, `GET /api/ping HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}`));
  assert.equal(((await checker.checkOutsideOperations(tooLarge, problem)) as Json)['code'], 'headers_too_large');
});

// Met in server-states.test.ts, or (408, 414) the same answer as 400 and 431 from node:http's parser.
const SERVER_SIDE = new Set(['rate_limited', 'internal_error', 'unavailable', 'request_timeout', 'uri_too_long']);

// The statuses and problem codes an operation documents that a request alone can bring about.
function requestMade(operation: { responses: Json }): { statuses: string[]; codes: string[] } {
  const statuses: string[] = [];
  const codes: string[] = [];
  for (const [status, response] of Object.entries(operation.responses)) {
    const examples = (((response as Json)['content'] as Record<string, Json> | undefined)?.['application/problem+json']?.['examples'] ?? {}) as Json;
    const own = Object.keys(examples).filter((code) => !SERVER_SIDE.has(code));
    if (Object.keys(examples).length === 0 || own.length > 0) statuses.push(status);
    codes.push(...own);
  }
  return { statuses, codes };
}

test('every operation, every status and every client error code it documents was met and conformed', () => {
  const paths = document['paths'] as Record<string, Record<string, { responses: Json }>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item).filter(([key]) => key !== 'parameters')) {
      const { statuses, codes } = requestMade(operation);
      const at = `${method.toUpperCase()} ${path}`;
      for (const status of statuses) assert.ok(checker.seen.has(`${at} ${status}`), `${at} ${status} was met`);
      for (const code of codes) assert.ok(checker.seenOperationCodes.has(`${at} ${code}`), `${at} ${code} was met`);
    }
  }
  const expected = Object.keys(ERRORS).filter((code) => !SERVER_SIDE.has(code));
  assert.deepEqual([...checker.seenCodes].sort(), expected.sort());
});
