import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { rawRequest } from '../support/raw-http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer({ SVC_LOG_LEVEL: 'silent', SVC_BODY_LIMIT_BYTES: '1000' });
});
after(() => server.stop());

const head = (length: number): string =>
  `POST /api/products HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nExpect: 100-continue`;

test('an oversized body announced with Expect: 100-continue is refused before the client sends it', async () => {
  const response = await rawRequest(server.url, head(5_000_000));
  assert.equal(response.status, 413, 'the first status line is the refusal, not 100 Continue');
  assert.equal(response.headers['connection'], 'close');
});

test('a body that fits is invited with 100 Continue and then created', async () => {
  const body = JSON.stringify({ name: 'Continued', priceInCents: 5 });
  const response = await rawRequest(server.url, head(Buffer.byteLength(body)), [body], 1_000);
  assert.equal(response.status, 100);
  assert.match(response.body, /HTTP\/1\.1 201 Created/);
  assert.match(response.body, /"name":"Continued"/);
});
