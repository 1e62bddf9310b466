import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { SLOT_LIMITS } from '../../src/webhooks/slots.ts';
import { postJson, startTestServer } from '../support/server.ts';
import { startReceiver, type Received } from '../support/webhook-receiver.ts';

type Json = Record<string, unknown>;

// Receivers that accept the connection and never answer, at the default timeout (10 s) and schedule:
// more than the half of a process's slots that webhooks whose last attempt failed may take (4 each).
const SHARE = SLOT_LIMITS.total / 2;
const HANGING = SHARE / SLOT_LIMITS.perWebhook + 8;
// Long enough for their first attempts to time out (10 s) and their backlogs to be claimed after.
const RUN_MS = 14_000;
const EVERY_MS = 400;

test('receivers that accept and never answer delay no event to one that answers (each within 2 s); at most 4 attempts open to each, at most half the slots to all', { timeout: 120_000 }, async () => {
  const server = await startTestServer({ SVC_WEBHOOK_ALLOW_PRIVATE: 'true' });
  const healthy = await startReceiver();
  const hanging = await Promise.all(Array.from({ length: HANGING }, () => startReceiver()));
  for (const receiver of hanging) receiver.answer = () => 'hang';
  let mostOpen = 0;
  const sampler = setInterval(() => {
    mostOpen = Math.max(mostOpen, hanging.reduce((sum, receiver) => sum + receiver.open, 0));
  }, 20);
  try {
    for (const receiver of [...hanging, healthy]) {
      assert.equal((await postJson(`${server.url}/api/webhooks`, { url: receiver.url, events: ['product.created'] })).status, 201);
    }
    // A burst first (new webhooks that hang must not fill the slots before they are known to), then a
    // steady stream while they hang: each event is a delivery to every receiver.
    const BURST = 5;
    const burst = await Promise.all(Array.from({ length: BURST }, (_, index) => postJson(`${server.url}/api/products`, { name: `burst ${index}`, priceInCents: index })));
    assert.deepEqual(burst.map((response) => response.status), burst.map(() => 201));
    let created = BURST;
    for (const started = Date.now(); Date.now() - started < RUN_MS; created++) {
      assert.equal((await postJson(`${server.url}/api/products`, { name: `event ${created}`, priceInCents: created })).status, 201);
      await sleep(EVERY_MS);
    }
    const arrived = await healthy.waitFor(created, 10_000);
    const lateness = (request: Received): number => request.at - Date.parse(String((JSON.parse(request.body) as Json)['createdAt']));
    assert.deepEqual(arrived.map(lateness).filter((ms) => ms > 2_000), [], 'every event reached the receiver that answers within 2 s of its record');
    assert.equal(new Set(healthy.ids()).size, created);
    // From both sides: the limits bind (the hanging receivers' backlogs want more than either), and
    // nothing passes them.
    const most = Math.max(...hanging.map((receiver) => receiver.maxOpen));
    assert.equal(most, SLOT_LIMITS.perWebhook, `at most ${SLOT_LIMITS.perWebhook}, and ${SLOT_LIMITS.perWebhook}, attempts open at once at a hanging receiver`);
    assert.equal(mostOpen, SHARE, `the hanging receivers held ${mostOpen} attempts at once: their share is ${SHARE}`);
  } finally {
    clearInterval(sampler);
    await Promise.all([healthy, ...hanging].map((receiver) => receiver.close()));
    await server.stop();
  }
});
