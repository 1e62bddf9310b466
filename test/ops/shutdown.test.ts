import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
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

  // Two uploads in flight: headers and part of the body sent before the signal. 100 Continue says
  // the app has the request (no fixed sleep to hope it got there).
  const uploads = await Promise.all([rawConnect(url), rawConnect(url)]);
  for (const upload of uploads) upload.socket.write(postHead('/api/products', Buffer.byteLength(body), { Expect: '100-continue' }));
  for (const upload of uploads) assert.equal((await upload.next()).status, 100);
  for (const upload of uploads) upload.socket.write(body.slice(0, 10));

  // A kept-alive connection that has served one request and has begun sending the next: both in
  // one write, so the server has read the start of the second once it has answered the first.
  const keptAlive = await rawConnect(url);
  keptAlive.socket.write('GET /api/products HTTP/1.1\r\nHost: localhost\r\n\r\nGET /api/products HTTP/1.1\r\nHost: localhost\r\n');
  assert.equal((await keptAlive.next()).status, 200);

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

// Fails with `what` if `promise` has not settled within `ms`, instead of waiting for ever.
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

test('SIGTERM with an upload that never completes: SVC_SHUTDOWN_TIMEOUT_MS later its connection is closed and the process exits 0', async (t) => {
  const database = await createTestDatabase();
  // Node's own request timeouts far away: only the shutdown deadline can end this request.
  const serve = spawnServe({ ...database.env, SVC_SHUTDOWN_TIMEOUT_MS: '1000', SVC_HEADERS_TIMEOUT_MS: '600000', SVC_REQUEST_TIMEOUT_MS: '600000' });
  t.after(async () => {
    serve.kill();
    await serve.exited;
    await database.drop();
  });
  const url = await urlOf(serve);
  const body = JSON.stringify(PRODUCT);
  const stuck = await rawConnect(url);
  // 100 Continue says the app has the request: it is in flight when the signal comes.
  stuck.socket.write(postHead('/api/products', Buffer.byteLength(body), { Expect: '100-continue' }));
  assert.equal((await stuck.next()).status, 100);
  stuck.socket.write(body.slice(0, 10));

  const signalledAt = Date.now();
  serve.child.kill('SIGTERM');
  await within(stuck.closed, 20_000, 'the stuck connection is closed');
  const closedAfter = Date.now() - signalledAt;
  assert.ok(closedAfter >= 950, `closed ${closedAfter} ms after SIGTERM, before SVC_SHUTDOWN_TIMEOUT_MS ran out`);
  await assert.rejects(stuck.next(), /connection closed before a complete response/);
  assert.equal(await within(serve.exited, 20_000, 'the process exits'), 0);
  assert.ok(serve.lines.some((line) => line['msg'] === 'stopped'));
  assert.equal(await database.countRows('products'), 0, 'the unfinished upload wrote nothing');
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

test('SIGTERM while the server is still starting: it finishes starting, then stops gracefully and exits 0', async (t) => {
  const database = await createTestDatabase();
  const slowListen = fileURLToPath(new URL('./slow-listen.ts', import.meta.url));
  const serve = spawnServe({ ...database.env, SVC_LOG_LEVEL: 'debug', NODE_OPTIONS: `--import=${slowListen}` });
  t.after(async () => {
    serve.kill();
    await serve.exited;
    await database.drop();
  });
  // 'starting' is written once the signal handlers are in place, and listening begins 300 ms later:
  // the signal lands in the middle of start-up, where a handler installed after it would not be yet.
  await serve.waitForLine((line) => line['msg'] === 'starting');
  serve.child.kill('SIGTERM');
  assert.equal(await serve.exited, 0, 'exited by itself, not killed by the signal');
  const messages = serve.lines.map((line) => line['msg']);
  assert.ok(messages.includes('shutting down') && messages.includes('stopped'), `lines: ${messages.join(', ')}`);
  assert.ok(!messages.some((msg) => String(msg).startsWith('listening on')), 'a server asked to stop before it was up does not announce itself');
});
