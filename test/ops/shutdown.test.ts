import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestDatabase } from '../support/test-database.ts';
import { PRODUCT, postHead, rawConnect, spawnServe, urlOf } from './support.ts';

test('SIGTERM: in-flight requests finish, new requests on open connections get 503, the process exits 0', async (t) => {
  const database = await createTestDatabase();
  const serve = spawnServe({ ...database.env, SVC_SHUTDOWN_TIMEOUT_MS: '10000' });
  t.after(async () => {
    serve.kill();
    await serve.exited;
    await database.drop();
  });
  const url = await urlOf(serve);
  const body = JSON.stringify(PRODUCT);

  // Two uploads in flight: headers and part of the body sent before the signal.
  const uploads = await Promise.all([rawConnect(url), rawConnect(url)]);
  for (const upload of uploads) upload.socket.write(postHead('/api/products', Buffer.byteLength(body)) + body.slice(0, 10));

  // A kept-alive connection that has served one request and has begun sending the next.
  const keptAlive = await rawConnect(url);
  keptAlive.socket.write('GET /api/products HTTP/1.1\r\nHost: localhost\r\n\r\n');
  assert.equal((await keptAlive.next()).status, 200);
  keptAlive.socket.write('GET /api/products HTTP/1.1\r\nHost: localhost\r\n');

  await new Promise((resolve) => setTimeout(resolve, 100));
  serve.child.kill('SIGTERM');
  await serve.waitForLine((line) => line['msg'] === 'shutting down');

  // The listener is closed: new connections are refused.
  await assert.rejects(fetch(`${url}/api/ping`));

  keptAlive.socket.write('\r\n');
  const refused = await keptAlive.next();
  assert.equal(refused.status, 503);
  assert.equal(refused.headers['connection'], 'close');
  assert.equal((JSON.parse(refused.body) as { code: string }).code, 'unavailable');
  await keptAlive.closed;

  for (const upload of uploads) upload.socket.write(body.slice(10));
  const finished = await Promise.all(uploads.map((upload) => upload.next()));
  assert.deepEqual(finished.map((response) => response.status), [201, 201]);
  // They end their connections too, so the process need not wait for them to idle out.
  assert.deepEqual(finished.map((response) => response.headers['connection']), ['close', 'close']);

  assert.equal(await serve.exited, 0);
  assert.ok(serve.lines.some((line) => line['msg'] === 'stopped'));
  assert.equal(await database.countRows('products'), 2);
});

test('SIGINT with nothing in flight exits 0 promptly, closing idle keep-alive connections', async (t) => {
  const database = await createTestDatabase();
  const serve = spawnServe({ ...database.env, SVC_SHUTDOWN_TIMEOUT_MS: '30000' });
  t.after(async () => {
    serve.kill();
    await serve.exited;
    await database.drop();
  });
  const url = await urlOf(serve);
  const idle = await rawConnect(url);
  idle.socket.write('GET /api/ping HTTP/1.1\r\nHost: localhost\r\n\r\n');
  assert.equal((await idle.next()).status, 200);
  const startedAt = Date.now();
  serve.child.kill('SIGINT');
  await idle.closed;
  assert.equal(await serve.exited, 0);
  // Well under the 30 s grace period: nothing waited for the idle connection to time out.
  assert.ok(Date.now() - startedAt < 10_000);
});
