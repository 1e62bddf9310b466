import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestServer } from '../support/server.ts';
import { type RawConnection, rawConnect } from './support.ts';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function ping(connection: RawConnection): Promise<number> {
  connection.socket.write('GET /api/ping HTTP/1.1\r\nHost: localhost\r\n\r\n');
  return (await connection.next()).status;
}

test('a client that never finishes its headers is cut off after SVC_HEADERS_TIMEOUT_MS; others are served meanwhile', async (t) => {
  const server = await startTestServer({ SVC_HEADERS_TIMEOUT_MS: '500' });
  t.after(() => server.stop());
  const slow = await rawConnect(server.url);
  slow.socket.write('GET /api/products HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
  let cutOff = false;
  const closed = slow.closed.then(() => {
    cutOff = true;
  });
  const statuses: number[] = [];
  // Well past the 500 ms limit (checked every 500 ms), yet far below the 10 s default.
  for (let i = 0; i < 40 && !cutOff; i++) {
    const response = await fetch(`${server.url}/api/products`);
    statuses.push(response.status);
    await response.arrayBuffer();
    await sleep(100);
  }
  await closed;
  assert.ok(cutOff);
  assert.ok(statuses.length >= 3);
  assert.deepEqual(new Set(statuses), new Set([200]));
  const answer = await slow.next();
  assert.equal(answer.status, 408);
  assert.equal((JSON.parse(answer.body) as { code: string }).code, 'request_timeout');
});

test('SVC_MAX_CONNECTIONS: connections beyond the limit are dropped, and room frees up when one closes', async (t) => {
  const server = await startTestServer({ SVC_MAX_CONNECTIONS: '2' });
  t.after(() => server.stop());
  const first = await rawConnect(server.url);
  const second = await rawConnect(server.url);
  assert.equal(await ping(first), 200);
  assert.equal(await ping(second), 200);

  const third = await rawConnect(server.url);
  third.socket.write('GET /api/ping HTTP/1.1\r\nHost: localhost\r\n\r\n');
  await third.closed;
  await assert.rejects(third.next(500));

  // The two admitted connections keep working.
  assert.equal(await ping(first), 200);
  first.socket.destroy();
  await first.closed;
  let admitted = false;
  for (let attempt = 0; attempt < 50 && !admitted; attempt++) {
    const next = await rawConnect(server.url);
    admitted = await ping(next).then(
      (status) => status === 200,
      () => false,
    );
    next.socket.destroy();
    if (!admitted) await sleep(20);
  }
  assert.ok(admitted);
  second.socket.destroy();
});
