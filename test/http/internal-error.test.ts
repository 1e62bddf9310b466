import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type AppServer, startAppServer } from '../support/app-server.ts';
import { assertProblem } from '../support/assertions.ts';
import { postJson } from '../support/server.ts';

// The database is closed under the running app (SQLite: the connection; PostgreSQL: the pool is
// ended): every query then throws an error the app does not expect.
let server: AppServer;
before(async () => {
  server = await startAppServer();
  await server.breakDatabase();
});
after(() => server.stop());

const LEAKS = [/sqlite/i, /postgres/i, /\bpool\b/i, /database/i, /select|insert|from products/i, /stack|\bat\s+\S+\s+\(/, /\/tmp\/|\.ts\b|\.db\b/, /not open/i];

async function assertBare500(response: Response, instance: string): Promise<string> {
  const text = await response.clone().text();
  const problem = await assertProblem(response, 500, 'internal_error', instance);
  assert.deepEqual(Object.keys(problem), ['type', 'title', 'status', 'code', 'detail', 'instance', 'requestId']);
  assert.equal(problem['title'], 'Internal Server Error');
  assert.equal(problem['detail'], 'An unexpected error occurred.');
  for (const leak of LEAKS) assert.doesNotMatch(text, leak);
  for (const name of [...server.database.names, process.cwd()]) assert.ok(!text.includes(name), `no file path or URL: ${name}`);
  return String(problem['requestId']);
}

function linesFor(requestId: string): Record<string, unknown>[] {
  server.app.logger.flush();
  return server.logs.filter((line) => line['reqId'] === requestId);
}

test('a failing read is 500 internal_error with nothing internal, logged once with its stack', async () => {
  const requestId = await assertBare500(await fetch(`${server.url}/api/products`, { headers: { 'x-request-id': 'boom-read' } }), '/api/products');
  assert.equal(requestId, 'boom-read');
  const lines = linesFor(requestId);
  const errors = lines.filter((line) => line['msg'] !== 'request completed');
  assert.equal(errors.length, 1, 'the error is logged exactly once');
  const [logged] = errors;
  assert.equal(logged?.['level'], 50);
  const err = logged?.['err'] as { type: string; message: string; stack: string };
  assert.match(err.stack, /\n\s+at /, 'the stack is in the log');
  assert.equal(typeof err.message, 'string');
  const access = lines.filter((line) => line['msg'] === 'request completed');
  assert.equal(access.length, 1);
  assert.equal(access[0]?.['level'], 50, '5xx request lines are level 50');
  assert.deepEqual(access[0]?.['res'], { statusCode: 500 });
});

test('a failing read by id and a failing write are 500 too', async () => {
  await assertBare500(await fetch(`${server.url}/api/products/1`, { signal: AbortSignal.timeout(10_000) }), '/api/products/1');
  const requestId = await assertBare500(await fetch(`${server.url}/api/products`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"name":"x","priceInCents":1}',
    signal: AbortSignal.timeout(10_000),
  }), '/api/products');
  assert.equal(linesFor(requestId).filter((line) => line['msg'] !== 'request completed').length, 1);
});

test('the 500 carries every security header', async () => {
  const response = await fetch(`${server.url}/api/products`);
  await response.arrayBuffer();
  assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(response.headers.get('cache-control'), 'no-store');
  assert.equal(response.headers.get('content-security-policy'), "default-src 'none'; frame-ancestors 'none'");
});

test('client errors are not logged as unexpected errors', async () => {
  const before = server.logs.length;
  await (await fetch(`${server.url}/api/nowhere`)).arrayBuffer();
  await (await postJson(`${server.url}/api/products`, '{')).arrayBuffer();
  server.app.logger.flush();
  const added = server.logs.slice(before);
  assert.deepEqual(added.map((line) => line['msg']), ['request completed', 'request completed']);
  assert.deepEqual(added.map((line) => line['level']), [30, 30]);
});
