import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { ERRORS } from '../../src/http/errors.ts';
import { ConformanceChecker } from '../support/schema-conformance.ts';
import { rawRequest } from '../support/raw-http.ts';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

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

test('readiness and the document itself conform, with HEAD', async () => {
  await expectStatus('GET', '/api/ping', get('/api/ping'), 200);
  await expectStatus('HEAD', '/api/ping', get('/api/ping', { method: 'HEAD' }), 200);
  await expectStatus('GET', '/api/openapi.json', get('/api/openapi.json'), 200);
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
    await expectStatus('POST', path, post(path, { nme: 'typo' }), 422);
    await expectStatus('POST', path, post(path, [body]), 422);
    await post(path, body, { 'idempotency-key': `reuse-${path}` });
    await expectStatus('POST', path, post(path, { name: 'Other' }, { 'idempotency-key': `reuse-${path}` }), 422);
  });
}

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
function responseOf(raw: string): Response {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = lines.map((line): [string, string] => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]);
  return new Response(body, { status: Number(statusLine.split(' ')[1]), headers });
}

// Sends a keyed create whose body is only half written, so its key stays claimed until `finish`.
async function halfSentCreate(path: string, key: string, body: string): Promise<{ finish(): Promise<Response> }> {
  const { hostname, port } = new URL(server.url);
  const socket = connect(Number(port), hostname);
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  // Refused early, the server may close before the rest is written; what it answered still counts.
  socket.on('error', () => {});
  const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${TOKEN}\r\n` +
    `Idempotency-Key: ${key}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
  await new Promise<void>((resolve) => socket.write(head + body.slice(0, 5), () => resolve()));
  return {
    finish: () =>
      new Promise((resolve) => {
        socket.on('close', () => resolve(responseOf(Buffer.concat(received).toString('utf8'))));
        socket.end(body.slice(5));
      }),
  };
}

test('409 idempotency_key_in_use conforms while a same-key request is still arriving', async () => {
  const body = JSON.stringify({ name: 'Race' });
  let conflict = false;
  // The server shares this process, so either request may be dispatched first: whichever comes
  // second while the other is unfinished gets 409. Bounded retries in case they did not overlap.
  for (let round = 0; round < 5 && !conflict; round++) {
    const first = await halfSentCreate('/api/workspaces', `in-flight-${round}`, body);
    const second = await checker.check('POST', '/api/workspaces', await post('/api/workspaces', { name: 'Race' }, { 'idempotency-key': `in-flight-${round}` }));
    const firstChecked = await checker.check('POST', '/api/workspaces', await first.finish());
    const statuses = [firstChecked.status, second.status].sort();
    conflict = statuses.includes(409);
    assert.deepEqual(statuses, conflict ? [201, 409] : [201, 201]);
  }
  assert.ok(conflict, 'the two requests never overlapped');
});

test('answers outside any operation (unknown path, 405, unparseable HTTP) are documented problems', async () => {
  const problem = { $ref: '#/components/schemas/Problem' };
  const unknown = await checker.checkOutsideOperations(await get('/api/nothing-here'), problem);
  assert.equal((unknown as Json)['code'], 'not_found');
  const notAllowed = await get('/api/ping', { method: 'DELETE' });
  assert.equal(notAllowed.headers.get('allow'), 'GET, HEAD');
  assert.equal(((await checker.checkOutsideOperations(notAllowed, problem)) as Json)['code'], 'method_not_allowed');
  const raw = await rawRequest(server.url, 'GARBAGE / HTTP/1.1\r\nHost: x');
  const unparseable = new Response(raw.body, { status: raw.status, headers: raw.headers });
  assert.equal(((await checker.checkOutsideOperations(unparseable, problem)) as Json)['code'], 'bad_request');
  const huge = await rawRequest(server.url, `GET /api/ping HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}`);
  const tooLarge = new Response(huge.body, { status: huge.status, headers: huge.headers });
  assert.equal(((await checker.checkOutsideOperations(tooLarge, problem)) as Json)['code'], 'headers_too_large');
});

test('every operation and every client error code was met and conformed', () => {
  const paths = document['paths'] as Record<string, Record<string, { responses: Json }>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item).filter(([key]) => key !== 'parameters')) {
      const success = Object.keys(operation.responses).find((status) => status.startsWith('2'));
      assert.ok(checker.seen.has(`${method.toUpperCase()} ${path} ${success}`), `${method} ${path} ${success}`);
    }
  }
  // Met in server-states.test.ts, or (408, 414) the same answer as 400 and 431 from node:http's parser.
  const serverSide = ['rate_limited', 'internal_error', 'unavailable', 'request_timeout', 'uri_too_long'];
  const expected = Object.keys(ERRORS).filter((code) => !serverSide.includes(code));
  assert.deepEqual([...checker.seenCodes].sort(), expected.sort());
});
