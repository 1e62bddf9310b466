import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { rawRequest } from '../support/raw-http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ALLOWED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.stop());

function logLineOf(requestId: string): Record<string, unknown> | undefined {
  server.app.logger.flush();
  return server.logs.find((line) => line['reqId'] === requestId && line['msg'] === 'request completed');
}

test('a valid client X-Request-Id is echoed: 1 character and 128 of the allowed set', async () => {
  const long = ALLOWED.repeat(2).slice(0, 128);
  for (const id of ['a', '-', long, ALLOWED]) {
    const response = await fetch(`${server.url}/api/ping`, { headers: { 'x-request-id': id } });
    await response.arrayBuffer();
    assert.equal(response.headers.get('x-request-id'), id);
    assert.equal(logLineOf(id)?.['reqId'], id, 'the same id is in the access log');
  }
});

test('an invalid X-Request-Id is replaced by a new UUID', async () => {
  for (const id of ['a'.repeat(129), 'has space', 'a/b', 'semi;colon', 'quote"d']) {
    const response = await fetch(`${server.url}/api/ping`, { headers: { 'x-request-id': id } });
    await response.arrayBuffer();
    const echoed = response.headers.get('x-request-id') ?? '';
    assert.match(echoed, UUID, id);
    assert.ok(logLineOf(echoed), 'the generated id is in the access log');
  }
});

test('non-ASCII bytes in X-Request-Id are replaced by a new UUID', async () => {
  const host = new URL(server.url).host;
  const head = Buffer.concat([
    Buffer.from(`GET /api/ping HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\nX-Request-Id: caf`),
    Buffer.from('é', 'utf8'),
  ]).toString('latin1');
  const response = await rawRequest(server.url, head);
  assert.equal(response.status, 200);
  assert.match(response.headers['x-request-id'] ?? '', UUID);
});

test('two X-Request-Id headers are not one valid id: a new UUID', async () => {
  const host = new URL(server.url).host;
  const response = await rawRequest(server.url, `GET /api/ping HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\nX-Request-Id: a\r\nX-Request-Id: b`);
  assert.match(response.headers['x-request-id'] ?? '', UUID);
});

test('without the header every response gets a distinct UUID', async () => {
  const ids = new Set<string>();
  for (let i = 0; i < 5; i++) {
    const response = await fetch(`${server.url}/api/ping`);
    await response.arrayBuffer();
    ids.add(response.headers.get('x-request-id') ?? '');
  }
  assert.equal(ids.size, 5);
  for (const id of ids) assert.match(id, UUID);
});

test('the id is the same in the header, the problem document and the log line', async () => {
  for (const sent of ['trace-123', 'not valid!']) {
    const response = await fetch(`${server.url}/api/products/abc`, { headers: { 'x-request-id': sent } });
    const problem = (await response.json()) as { requestId: string };
    const header = response.headers.get('x-request-id') ?? '';
    assert.equal(problem.requestId, header);
    if (sent === 'trace-123') assert.equal(header, sent);
    const line = logLineOf(header);
    assert.ok(line, 'logged under the same id');
    assert.deepEqual(line['res'], { statusCode: 404 });
  }
});
