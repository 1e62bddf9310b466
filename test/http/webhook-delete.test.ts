import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually } from '../support/assertions.ts';
import { postJson, startTestServer } from '../support/server.ts';
import { fillDeliveryLog } from '../support/webhook-log.ts';
import { startReceiver } from '../support/webhook-receiver.ts';

type Json = Record<string, unknown>;

// What months of use leave in a webhook's log (nothing of it expired: retention keeps a week).
const LOG_ROWS = 200_000;

test('DELETE of a webhook with a long log answers at once: requests are answered while its log goes, in steps; nothing more is sent to it', { timeout: 180_000 }, async () => {
  const server = await startTestServer({ SVC_WEBHOOK_ALLOW_PRIVATE: 'true', SVC_WEBHOOK_RETRY_SCHEDULE: '100ms' });
  const deleted = await startReceiver();
  const other = await startReceiver();
  try {
    const made = (await (await postJson(`${server.url}/api/webhooks`, { url: deleted.url })).json()) as Json;
    assert.equal((await postJson(`${server.url}/api/webhooks`, { url: other.url })).status, 201);
    const id = Number(made['id']);
    await fillDeliveryLog(server.database, id, LOG_ROWS);
    const logOf = (): Promise<number> => server.database.countRows('webhook_deliveries', `webhook_id = ${id}`);
    assert.equal(await logOf(), LOG_ROWS);

    assert.equal((await fetch(`${server.url}/api/webhooks/${id}`, { method: 'DELETE' })).status, 204);
    // The order of things, not a time: ping, a read and a create answered, and the webhook gone, while
    // its log is still there.
    assert.equal((await fetch(`${server.url}/api/ping`)).status, 200);
    assert.equal((await fetch(`${server.url}/api/webhooks/${id}`)).status, 404);
    assert.equal((await fetch(`${server.url}/api/webhooks/${id}/deliveries`)).status, 404);
    assert.equal((await postJson(`${server.url}/api/products`, { name: 'after the delete', priceInCents: 1 })).status, 201);
    const left = await logOf();
    assert.ok(left > 0, 'requests were answered before the log was empty');
    assert.equal((await fetch(`${server.url}/api/webhooks/${id}`, { method: 'DELETE' })).status, 404, 'a second DELETE');

    // While it goes, requests keep being answered; it goes whole, and the webhook's row after it.
    let answered = 0;
    await eventually('the log removed', async () => {
      assert.equal((await fetch(`${server.url}/api/ping`)).status, 200);
      answered++;
      return (await logOf()) === 0;
    }, 120_000, 50);
    assert.ok(answered > 1, `${answered} pings answered while the log went`);
    await eventually('the webhook row removed', async () => (await server.database.countRows('webhooks', `id = ${id}`)) === 0, 30_000, 100);

    // Nothing more is sent to it; the other webhook got the event made after the delete.
    const [got] = await other.waitFor(1);
    assert.equal(((JSON.parse(got?.body ?? '{}') as Json)['data'] as Json)['name'], 'after the delete');
    assert.equal(deleted.received.length, 0);
  } finally {
    await deleted.close();
    await other.close();
    await server.stop();
  }
});
