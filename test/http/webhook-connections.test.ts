// The deliverer keeps connections to a receiver alive, and closes them when the service stops
// (docs/webhooks.md, Connections). What a kept connection may serve: test/unit/webhook-connections.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { postJson, startTestServer } from '../support/server.ts';
import { startReceiver } from '../support/webhook-receiver.ts';

const ENV = { SVC_WEBHOOK_ALLOW_PRIVATE: 'true' };

test('deliveries to one receiver share one connection, and stopping the service closes it at once', { timeout: 60_000 }, async () => {
  const server = await startTestServer(ENV);
  const receiver = await startReceiver();
  let stopped = false;
  try {
    assert.equal((await postJson(`${server.url}/api/webhooks`, { url: receiver.url })).status, 201);
    // One at a time, so that no two attempts are in flight together (each would need its own connection).
    for (let i = 1; i <= 3; i++) {
      assert.equal((await postJson(`${server.url}/api/products`, { name: `kept ${i}`, priceInCents: 1 })).status, 201);
      await receiver.waitFor(i);
    }
    assert.equal(receiver.connections, 1);
    assert.equal(receiver.openConnections, 1, 'kept open between deliveries');
    await server.stop();
    stopped = true;
    // Kept idle, it would stay open for seconds more (the idle timeout); stopping closes it.
    const deadline = Date.now() + 1_000;
    while (receiver.openConnections > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(receiver.openConnections, 0, 'the kept connection is closed when the deliveries stop');
  } finally {
    if (!stopped) await server.stop();
    await receiver.close();
  }
});
