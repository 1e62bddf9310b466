import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { followUntil } from '../support/events.ts';
import { openStream } from '../support/event-stream.ts';
import { patchJson, postJson, startTestServer, type TestServer } from '../support/server.ts';
import { startReceiver, verifyDelivery } from '../support/webhook-receiver.ts';

// One event, one text (docs/webhooks.md, docs/events.md): a webhook delivery's body, the feed's JSON of
// that event and a stream's message data are the same bytes, on both engines. On PostgreSQL the
// delivery's copy of the event is made by a trigger at insert (migration 005) with its own text of
// `createdAt`: this holds it to the feed's text (milliseconds included).
let server: TestServer;
before(async () => {
  server = await startTestServer({ SVC_WEBHOOK_ALLOW_PRIVATE: 'true' });
});
after(() => server.stop());

test('a delivery\'s body is the feed\'s JSON text of its event, byte for byte, and a stream\'s data too', async () => {
  const receiver = await startReceiver();
  try {
    const hook = (await (await postJson(`${server.url}/api/webhooks`, { url: receiver.url })).json()) as { id: number; secret: string };
    const stream = await openStream(`${server.url}/api/events`, { connection: 'close' });
    // Times with milliseconds other than .000 (a whole second would hide a lost fraction): a few changes.
    const made = (await (await postJson(`${server.url}/api/products`, { name: 'lamp', priceInCents: 100 })).json()) as { id: number };
    for (const name of ['lamp 2', 'lamp 3']) assert.equal((await patchJson(`${server.url}/api/products/${made.id}`, { name })).status, 200);
    const deliveries = await receiver.waitFor(3);
    const messages = await stream.waitFor(3);
    stream.close();
    const ids = (await followUntil(server.url, '/api/events', (events) => events.length >= 3)).events.map((event) => event.id);
    for (const delivery of deliveries) {
      const event = verifyDelivery(hook.secret, delivery) as { id: string; createdAt: string };
      assert.match(event.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      // The feed's page of just this event is `[<its JSON text>]`.
      const index = ids.indexOf(event.id);
      assert.ok(index >= 0, `${event.id} is in the feed`);
      const page = await fetch(`${server.url}/api/events?limit=1${index === 0 ? '' : `&after=${ids[index - 1]}`}`);
      assert.equal(await page.text(), `[${delivery.body}]`, `the delivery of ${event.id} is the feed's bytes`);
      assert.equal(messages.find((message) => message.id === event.id)?.data, delivery.body, `the stream's data of ${event.id} is the delivery's bytes`);
    }
  } finally {
    await receiver.close();
  }
});
