import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { rawRequest } from '../support/raw-http.ts';
import { patchJson, postJson, startTestServer, type TestServer } from '../support/server.ts';

const APP = 'https://app.example.com';
const OTHER = 'https://evil.example.net';
const EXPOSED = 'ETag, Location, Link, Retry-After, RateLimit, RateLimit-Policy, X-Request-Id, Idempotent-Replayed, WWW-Authenticate, Api-Version, Deprecation, Sunset';
// Every answer under /api varies with the Api-Version request header too (docs/versions.md).
const VARY = 'Origin, Api-Version';

/** Every CORS response header, by its lower-case name, or null when absent. */
function corsOf(headers: Headers): Record<string, string | null> {
  const names = ['access-control-allow-origin', 'access-control-expose-headers', 'access-control-allow-methods', 'access-control-allow-headers'];
  const all = [...names, 'access-control-max-age', 'access-control-allow-credentials', 'vary', 'set-cookie'];
  return Object.fromEntries(all.map((name) => [name, headers.get(name)]));
}

/** Asserts the headers an allowed origin's answer carries: exactly these, no preflight ones, no credentials. */
function assertAllowed(response: Response, origin: string, label: string): void {
  assert.deepEqual(
    corsOf(response.headers),
    {
      'access-control-allow-origin': origin,
      'access-control-expose-headers': EXPOSED,
      'access-control-allow-methods': null,
      'access-control-allow-headers': null,
      'access-control-max-age': null,
      'access-control-allow-credentials': null,
      vary: VARY,
      'set-cookie': null,
    },
    label,
  );
}

/** Asserts an answer with no CORS header at all (the browser then refuses it), and `vary` as given. */
function assertRefused(response: Response, vary: string | null, label: string): void {
  const cors = corsOf(response.headers);
  assert.deepEqual(cors, { ...Object.fromEntries(Object.keys(cors).map((name) => [name, null])), vary }, label);
}

const from = (origin: string, headers: Record<string, string> = {}): Record<string, string> => ({ origin, ...headers });

describe('SVC_CORS_ORIGINS with a list: every answer to an allowed origin carries the CORS headers', () => {
  let server: TestServer;
  let url = '';
  let productPath = '';
  before(async () => {
    // Written as people write it; compared as browsers send it (RFC 6454 serialization).
    server = await startTestServer({ SVC_CORS_ORIGINS: ` HTTPS://App.Example.COM:443/ , http://localhost:5173`, SVC_BODY_LIMIT_BYTES: '64' });
    url = server.url;
    productPath = (await postJson(`${url}/api/products`, { name: 'Lamp', priceInCents: 5 })).headers.get('location') ?? '';
  });
  after(() => server.stop());

  test('successes: 200, 201, 200 to PATCH, 204, 304 and HEAD, for each listed origin', async () => {
    assertAllowed(await fetch(`${url}/api/products`, { headers: from(APP) }), APP, 'GET list');
    assertAllowed(await fetch(`${url}/api/ping`, { headers: from('http://localhost:5173') }), 'http://localhost:5173', 'ping, second origin');
    const created = await postJson(`${url}/api/products`, { name: 'Desk', priceInCents: 1 }, from(APP));
    assert.equal(created.status, 201);
    assertAllowed(created, APP, '201');
    const location = created.headers.get('location') ?? '';
    const read = await fetch(`${url}${location}`, { headers: from(APP) });
    assertAllowed(read, APP, '200 by id');
    const notModified = await fetch(`${url}${location}`, { headers: from(APP, { 'if-none-match': read.headers.get('etag') ?? '' }) });
    assert.equal(notModified.status, 304);
    assertAllowed(notModified, APP, '304');
    assertAllowed(await fetch(`${url}${location}`, { method: 'HEAD', headers: from(APP) }), APP, 'HEAD');
    const patched = await patchJson(`${url}${location}`, { priceInCents: 2 }, from(APP, { 'if-match': read.headers.get('etag') ?? '' }));
    assert.equal(patched.status, 200);
    assertAllowed(patched, APP, 'PATCH');
    const deleted = await fetch(`${url}${location}`, { method: 'DELETE', headers: from(APP) });
    assert.equal(deleted.status, 204);
    assertAllowed(deleted, APP, '204');
  });

  test('errors: 400, 404, 405, 412, 415 and 422 carry them too, so a page can read the problem document', async () => {
    const cases: [number, Promise<Response>][] = [
      [400, fetch(`${url}/api/products?limit=0`, { headers: from(APP) })],
      [404, fetch(`${url}/api/nowhere`, { headers: from(APP) })],
      [405, fetch(`${url}/api/products`, { method: 'PUT', headers: from(APP) })],
      [412, fetch(`${url}${productPath}`, { method: 'DELETE', headers: from(APP, { 'if-match': '"999"' }) })],
      [415, fetch(`${url}/api/products`, { method: 'POST', headers: from(APP, { 'content-type': 'text/plain' }), body: 'x' })],
      [422, postJson(`${url}/api/products`, {}, from(APP))],
    ];
    for (const [status, pending] of cases) {
      const response = await pending;
      assert.equal(response.status, status);
      assert.equal(response.headers.get('content-type'), 'application/problem+json');
      assertAllowed(response, APP, String(status));
      await response.arrayBuffer();
    }
  });

  test('413, answered before the body is read, carries them too', async () => {
    const host = new URL(url).host;
    const response = await rawRequest(url, `POST /api/products HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${APP}\r\nContent-Type: application/json\r\nContent-Length: 100000`);
    assert.equal(response.status, 413);
    assert.equal(response.headers['access-control-allow-origin'], APP);
    assert.equal(response.headers['access-control-expose-headers'], EXPOSED);
    assert.equal(response.headers['vary'], VARY);
  });

  test('an origin not listed, or one written another way, gets no CORS header; Vary: Origin is still sent', async () => {
    // A near miss of each kind: another scheme, port, host, a path, letter case (browsers send lower case).
    for (const origin of [OTHER, 'http://app.example.com', 'https://app.example.com:8443', 'https://app.example.com.evil.example', 'https://App.Example.com', 'null', '']) {
      const response = await fetch(`${url}/api/products`, { headers: from(origin) });
      assert.equal(response.status, 200);
      assertRefused(response, VARY, JSON.stringify(origin));
    }
    assertRefused(await fetch(`${url}/api/nowhere`, { headers: from(OTHER) }), VARY, '404 to another origin');
  });

  test('a request without Origin (not from a page of another origin) gets no CORS header but Vary: Origin', async () => {
    assertRefused(await fetch(`${url}/api/products`), VARY, 'no Origin');
  });

  test('cookies play no part: one sent is ignored, none is set, credentials are never allowed', async () => {
    const response = await fetch(`${url}/api/products`, { headers: from(APP, { cookie: 'session=abc' }) });
    assert.equal(response.status, 200);
    assertAllowed(response, APP, 'with a cookie');
  });
});

describe('SVC_CORS_ORIGINS=*: any origin, with Access-Control-Allow-Origin: *', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ SVC_CORS_ORIGINS: '*' });
  });
  after(() => server.stop());

  test('every origin, errors included, gets *; no Origin gets none', async () => {
    assertAllowed(await fetch(`${server.url}/api/products`, { headers: from(OTHER) }), '*', 'list');
    assertAllowed(await fetch(`${server.url}/api/nowhere`, { headers: from('null') }), '*', '404 to a sandboxed page');
    assertRefused(await fetch(`${server.url}/api/products`), VARY, 'no Origin');
  });
});

describe('CORS off (SVC_CORS_ORIGINS empty): no CORS header, ever', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  test('an Origin changes nothing, and a preflight is an OPTIONS request like any other: 405 with Allow', async () => {
    assertRefused(await fetch(`${server.url}/api/products`, { headers: from(APP) }), 'Api-Version', 'GET');
    const preflight = await fetch(`${server.url}/api/products`, { method: 'OPTIONS', headers: from(APP, { 'access-control-request-method': 'POST' }) });
    assert.equal(preflight.status, 405);
    assert.equal(preflight.headers.get('allow'), 'GET, POST, HEAD');
    assertRefused(preflight, 'Api-Version', 'preflight');
  });
});

describe('rate limiting, shutting down and SVC_API_TOKEN with CORS on', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ SVC_CORS_ORIGINS: APP, SVC_RATE_LIMIT: '2', SVC_RATE_LIMIT_WINDOW_S: '3600', SVC_API_TOKEN: 'a-token-long-enough-1234' });
  });
  after(() => server.stop());

  test('401 of a write without the token carries them, WWW-Authenticate exposed', async () => {
    const response = await postJson(`${server.url}/api/products`, { name: 'x', priceInCents: 1 }, from(APP));
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer');
    assertAllowed(response, APP, '401');
  });

  test('preflights are not counted against the limit; a 429 carries them, with Retry-After exposed', async () => {
    const preflight = () => fetch(`${server.url}/api/products`, { method: 'OPTIONS', headers: from(APP, { 'access-control-request-method': 'GET' }) });
    for (let i = 0; i < 5; i++) assert.equal((await preflight()).status, 204);
    // The 401 above was the first request counted; this one is the second and last.
    assert.equal((await fetch(`${server.url}/api/products`, { headers: from(APP) })).status, 200);
    const limited = await fetch(`${server.url}/api/products`, { headers: from(APP) });
    assert.equal(limited.status, 429);
    assert.match(limited.headers.get('retry-after') ?? '', /^\d+$/);
    assertAllowed(limited, APP, '429');
  });

  test('503 while shutting down carries them', async () => {
    server.app.drain();
    const response = await fetch(`${server.url}/api/ping`, { headers: from(APP) });
    assert.equal(response.status, 503);
    assertAllowed(response, APP, '503');
  });
});
