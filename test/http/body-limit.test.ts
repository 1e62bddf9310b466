import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import { rawRequest } from '../support/raw-http.ts';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

const LIMIT = 1024;
let server: TestServer;
before(async () => {
  server = await startTestServer({ SVC_BODY_LIMIT_BYTES: String(LIMIT) });
});
after(() => server.stop());

const host = (): string => new URL(server.url).host;

/** A product body of exactly `size` bytes. */
function bodyOfSize(size: number): string {
  const frame = '{"name":"","priceInCents":1}';
  return `{"name":"${'n'.repeat(size - frame.length)}","priceInCents":1}`;
}

test('a body of exactly the limit is read; one byte more is 413 Content Too Large', async () => {
  // The name is too long for the rules, so the accepted body gets 422: what matters is it was read.
  const atLimit = await postJson(`${server.url}/api/products`, bodyOfSize(LIMIT));
  assert.equal(Buffer.byteLength(bodyOfSize(LIMIT)), LIMIT);
  assert.equal(atLimit.status, 422);
  const over = await rawRequest(server.url, `POST /api/products HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nContent-Length: ${LIMIT + 1}`, [bodyOfSize(LIMIT + 1)]);
  assert.equal(over.status, 413);
  const problem = JSON.parse(over.body) as Record<string, unknown>;
  assert.equal(problem['title'], 'Content Too Large');
  assert.equal(problem['code'], 'payload_too_large');
  assert.equal(problem['detail'], `The request body is larger than ${LIMIT} bytes.`);
});

test('a Content-Length over the limit is answered at once, without the body being sent', async () => {
  const response = await rawRequest(
    server.url,
    `POST /api/products HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nContent-Length: 10000000`,
    [],
    5_000,
  );
  assert.equal(response.status, 413, 'answered while the client still owes ten megabytes');
  assert.equal(response.headers['content-type'], 'application/problem+json');
  assert.equal(response.headers['connection'], 'close', 'the unread body must not be parsed as a next request');
  assert.ok(response.closedByServer);
});

test('a chunked body is cut off as soon as it passes the limit', async () => {
  const chunk = (text: string): string => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
  const parts = ['{"name":"', 'x'.repeat(600), 'x'.repeat(600)].map(chunk);
  // No terminating 0-chunk: the server must answer without waiting for the end.
  const response = await rawRequest(
    server.url,
    `POST /api/products HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked`,
    parts,
    5_000,
  );
  assert.equal(response.status, 413);
  assert.equal(response.headers['connection'], 'close');
  assert.equal((JSON.parse(response.body) as { code: string }).code, 'payload_too_large');
  assert.ok(response.closedByServer);
});

test('a chunked body that keeps streaming is cut off (node:http client)', async () => {
  const { hostname, port } = new URL(server.url);
  const status = await new Promise<number>((resolve, reject) => {
    const req = request({ hostname, port, method: 'POST', path: '/api/products', headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    req.on('error', reject);
    let sent = 0;
    const pump = (): void => {
      // Bounded: 64 KiB at most, far over the limit; the answer comes long before.
      if (sent >= 65_536 || req.destroyed) return;
      sent += 256;
      req.write('x'.repeat(256), () => setImmediate(pump));
    };
    pump();
  });
  assert.equal(status, 413);
});

test('a chunked body under the limit is read whole', async () => {
  const chunk = (text: string): string => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
  const response = await rawRequest(
    server.url,
    `POST /api/products HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close`,
    [chunk('{"name":"chunk'), chunk('ed","priceInCents":7}'), '0\r\n\r\n'],
  );
  assert.equal(response.status, 201);
  assert.equal((JSON.parse(response.body) as { name: string }).name, 'chunked');
});

test('the server keeps serving after refusing large bodies', async () => {
  assert.equal((await fetch(`${server.url}/api/ping`)).status, 200);
});
