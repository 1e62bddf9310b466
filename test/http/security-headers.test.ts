import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type AppServer, startAppServer } from '../support/app-server.ts';
import { rawRequest } from '../support/raw-http.ts';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

const EXPECTED: Record<string, string> = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
};

/** Every header of docs/api.md, Headers, and neither X-Powered-By nor Server. */
function assertSecurityHeaders(get: (name: string) => string | null | undefined, label: string): void {
  for (const [name, value] of Object.entries(EXPECTED)) assert.equal(get(name), value, `${label}: ${name}`);
  assert.match(get('x-request-id') ?? '', /^[A-Za-z0-9._:-]{1,128}$/, `${label}: x-request-id`);
  assert.equal(get('x-powered-by') ?? null, null, `${label}: x-powered-by`);
  assert.equal(get('server') ?? null, null, `${label}: server`);
}

async function check(response: Response, status: number, contentType: string): Promise<void> {
  await response.arrayBuffer();
  assert.equal(response.status, status);
  assert.equal(response.headers.get('content-type'), contentType, `${status}: content-type`);
  assertSecurityHeaders((name) => response.headers.get(name), String(status));
}

const JSON_TYPE = 'application/json; charset=utf-8';
const PROBLEM_TYPE = 'application/problem+json';

let server: TestServer;
let broken: AppServer;
before(async () => {
  server = await startTestServer({ SVC_BODY_LIMIT_BYTES: '64' });
  broken = await startAppServer();
  await broken.breakDatabase();
});
after(async () => {
  await server.stop();
  await broken.stop();
});

test('200 and 201 carry every security header', async () => {
  await check(await fetch(`${server.url}/api/ping`), 200, JSON_TYPE);
  await check(await fetch(`${server.url}/api/products`), 200, JSON_TYPE);
  await check(await postJson(`${server.url}/api/products`, { name: 'x', priceInCents: 1 }), 201, JSON_TYPE);
});

test('400, 404, 405, 415 and 422 carry every security header', async () => {
  await check(await postJson(`${server.url}/api/products`, '{'), 400, PROBLEM_TYPE);
  await check(await fetch(`${server.url}/api/products?limit=0`), 400, PROBLEM_TYPE);
  await check(await fetch(`${server.url}/nowhere`), 404, PROBLEM_TYPE);
  await check(await fetch(`${server.url}/api/products/0`), 404, PROBLEM_TYPE);
  await check(await fetch(`${server.url}/api/ping`, { method: 'DELETE' }), 405, PROBLEM_TYPE);
  await check(await fetch(`${server.url}/api/products`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }), 415, PROBLEM_TYPE);
  await check(await postJson(`${server.url}/api/products`, {}), 422, PROBLEM_TYPE);
});

test('413 carries every security header, also when answered before the body', async () => {
  const host = new URL(server.url).host;
  const response = await rawRequest(server.url, `POST /api/products HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 100000`);
  assert.equal(response.status, 413);
  assert.equal(response.headers['content-type'], PROBLEM_TYPE);
  assertSecurityHeaders((name) => response.headers[name], '413');
});

test('500 and 503 carry every security header', async () => {
  await check(await fetch(`${broken.url}/api/products`), 500, PROBLEM_TYPE);
  await check(await fetch(`${broken.url}/api/ping`), 503, JSON_TYPE);
});

test('HEAD responses carry every security header', async () => {
  const head = await fetch(`${server.url}/api/products`, { method: 'HEAD' });
  assert.equal(head.status, 200);
  assertSecurityHeaders((name) => head.headers.get(name), 'HEAD');
});

test('503 while shutting down carries every security header and closes the connection', async () => {
  const draining = await startTestServer();
  try {
    draining.app.drain();
    const response = await fetch(`${draining.url}/api/ping`);
    const problem = (await response.clone().json()) as { code: string };
    await check(response, 503, PROBLEM_TYPE);
    assert.equal(problem.code, 'unavailable');
    assert.equal(response.headers.get('connection'), 'close');
  } finally {
    await draining.stop();
  }
});
