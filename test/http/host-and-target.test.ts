import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { SECURITY_HEADERS } from '../../src/http/security-headers.ts';
import { rawRequest, type RawResponse } from '../support/raw-http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let host = '';
before(async () => {
  server = await startTestServer();
  host = new URL(server.url).host;
});
after(() => server.stop());

// A problem document with every security header, as docs/api.md (Errors, Headers) promises.
function assertProblemResponse(response: RawResponse, status: number, code: string): Record<string, unknown> {
  assert.equal(response.status, status);
  assert.equal(response.headers['content-type'], 'application/problem+json');
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) assert.equal(response.headers[name], value, `${status}: ${name}`);
  const problem = JSON.parse(response.body) as Record<string, unknown>;
  assert.equal(problem['status'], status);
  assert.equal(problem['code'], code);
  assert.equal(problem['requestId'], response.headers['x-request-id']);
  return problem;
}

test('HTTP/1.1 without a Host header is 400 bad_request, a problem document with the security headers', async () => {
  const response = await rawRequest(server.url, 'GET /api/ping HTTP/1.1\r\nConnection: close');
  const problem = assertProblemResponse(response, 400, 'bad_request');
  assert.match(String(problem['detail']), /Host/);
});

test('HTTP/1.1 with two Host headers is 400 bad_request', async () => {
  const response = await rawRequest(server.url, `GET /api/ping HTTP/1.1\r\nHost: ${host}\r\nHost: elsewhere.example\r\nConnection: close`);
  assertProblemResponse(response, 400, 'bad_request');
});

test('HTTP/1.0 needs no Host, and HTTP/1.1 with one is served', async () => {
  assert.equal((await rawRequest(server.url, 'GET /api/ping HTTP/1.0')).status, 200);
  assert.equal((await rawRequest(server.url, `GET /api/ping HTTP/1.1\r\nHost: ${host}\r\nConnection: close`)).status, 200);
});

test("a request target over node:http's head limit is 414 uri_too_long, a problem document with the security headers", async () => {
  const response = await rawRequest(server.url, `GET /api/products?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: ${host}`);
  assertProblemResponse(response, 414, 'uri_too_long');
  assert.equal(response.headers['connection'], 'close');
  assert.ok(response.closedByServer);
});

test('a target just long enough to overflow, followed at once by the version, is 414 too', async () => {
  // The limit runs out as the target's last bytes arrive: the space before HTTP/1.1 says it was the target.
  const response = await rawRequest(server.url, `GET /${'b'.repeat(16_400)} HTTP/1.1\r\nHost: ${host}`);
  assertProblemResponse(response, 414, 'uri_too_long');
});

test('header fields over the same limit are 431 headers_too_large, not 414', async () => {
  const oneLarge = await rawRequest(server.url, `GET /api/ping HTTP/1.1\r\nHost: ${host}\r\nX-Large: ${'c'.repeat(20_000)}`);
  assertProblemResponse(oneLarge, 431, 'headers_too_large');
  const many = Array.from({ length: 400 }, (_, i) => `X-Field-${i}: ${'d'.repeat(50)}`).join('\r\n');
  assertProblemResponse(await rawRequest(server.url, `GET /api/ping HTTP/1.1\r\nHost: ${host}\r\n${many}`), 431, 'headers_too_large');
});

// Opens a connection, sends one request, and resolves with the response head and, once the server
// closes the idle connection, how long after the response that was; fails if it is still open after `limitMs`.
function idleCloseAfterResponse(url: string, limitMs: number): Promise<{ head: string; idleMs: number }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    let answeredAt = 0;
    const timer = setTimeout(() => {
      reject(new Error(`the idle connection is still open after ${limitMs} ms`));
      socket.destroy();
    }, limitMs);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (answeredAt === 0 && received.includes('\r\n\r\n')) answeredAt = Date.now();
    });
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      if (answeredAt === 0) reject(new Error('closed before a response'));
      else resolve({ head: received.slice(0, received.indexOf('\r\n\r\n')), idleMs: Date.now() - answeredAt });
    });
    socket.write(`GET /api/ping HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`);
  });
}

test('SVC_KEEP_ALIVE_TIMEOUT_MS applies: it is announced in Keep-Alive, and an idle connection is closed after it', async (t) => {
  const short = await startTestServer({ SVC_KEEP_ALIVE_TIMEOUT_MS: '1500' });
  t.after(() => short.stop());
  const { head, idleMs } = await idleCloseAfterResponse(short.url, 15_000);
  assert.match(head, /^keep-alive: timeout=1$/im);
  // Not before the configured time, and long before the 65 s default (Node adds a second of slack).
  assert.ok(idleMs >= 1_400, `closed after ${idleMs} ms of idleness`);
});

test('without SVC_KEEP_ALIVE_TIMEOUT_MS the announced keep-alive is the default 65 s', async () => {
  const response = await rawRequest(server.url, `GET /api/ping HTTP/1.1\r\nHost: ${host}`, [], 300);
  assert.equal(response.status, 200);
  assert.equal(response.headers['keep-alive'], 'timeout=65');
  assert.equal(response.closedByServer, false);
});
