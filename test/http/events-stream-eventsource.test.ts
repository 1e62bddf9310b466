import assert from 'node:assert/strict';
import { createServer, type Socket, connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { EventSource } from 'eventsource';
import { postJson, startTestServer } from '../support/server.ts';

// A real EventSource client (the `eventsource` package, WHATWG-conformant) reads the stream, loses
// its connection (a TCP relay in between is cut), reconnects by itself with Last-Event-ID, and gets
// exactly the events it missed: none twice, none lost.

// A relay to `target` whose open connections can be cut, as a network would.
async function startRelay(target: URL): Promise<{ url: string; cut(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const relay = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const { port } = relay.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    cut: () => sockets.forEach((socket) => socket.destroy()),
    close: () => new Promise((resolve) => relay.close(() => resolve())),
  };
}

// Every wait has a deadline inside the test's own, so a failure still closes the client and the server.
test('the eventsource package reads the stream and, cut off, resumes with Last-Event-ID exactly where it was', { timeout: 60_000 }, async () => {
  const server = await startTestServer();
  const relay = await startRelay(new URL(server.url));
  const source = new EventSource(`${relay.url}/api/events`);
  try {
    const names: string[] = [];
    const ids: string[] = [];
    source.addEventListener('product.created', (event) => {
      names.push((JSON.parse(event.data) as { data: { name: string } }).data.name);
      ids.push(event.lastEventId);
    });
    await new Promise<void>((resolve, reject) => {
      source.onopen = () => resolve();
      setTimeout(() => reject(new Error('never opened')), 10_000);
    });
    const create = async (name: string): Promise<void> => assert.equal((await postJson(`${server.url}/api/products`, { name, priceInCents: 1 })).status, 201);
    const deadline = Date.now() + 40_000;
    const seen = async (count: number): Promise<void> => {
      while (names.length < count && Date.now() < deadline) await sleep(20);
      assert.ok(names.length >= count, `${count} events by now, got ${names.join(', ')}`);
    };
    // Made once the client saw the stream open: the stream's place was fixed before that.
    await create('one');
    await create('two');
    await seen(2);
    relay.cut();
    // Recorded while the client is away: it must get them after reconnecting on its own.
    await create('three');
    await create('four');
    await seen(4);
    await create('five');
    await seen(5);
    await sleep(200);
    assert.deepEqual(names, ['one', 'two', 'three', 'four', 'five']);
    assert.equal(new Set(ids).size, 5);
  } finally {
    source.close();
    relay.cut();
    await relay.close();
    await server.stop();
  }
});
