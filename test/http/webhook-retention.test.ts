import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { assertProblem, eventually } from '../support/assertions.ts';
import { followUntil } from '../support/events.ts';
import { patchJson, postJson, startTestServer } from '../support/server.ts';
import { startReceiver, type Answer, type Receiver } from '../support/webhook-receiver.ts';

type Json = Record<string, unknown>;

// The shortest retention there is, so expiry can be watched; a one-delay schedule, so a failing
// receiver's delivery is failed at once.
const ENV = { SVC_EVENTS_RETENTION: '10s', SVC_WEBHOOK_ALLOW_PRIVATE: 'true', SVC_WEBHOOK_RETRY_SCHEDULE: '100ms' };

test('deliveries are kept as long as their event: ended ones go with it within a minute, pending ones when they end, a disabled webhook\'s become failed; a retry of an expired event is 410 and sends nothing', { timeout: 180_000 }, async () => {
  const server = await startTestServer(ENV);
  const receivers: Receiver[] = [];
  // A webhook taking products, to a receiver answering `first` to its first request and `then` after.
  const subscribe = async (first: Answer, then: Answer = first): Promise<{ id: number; receiver: Receiver }> => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    receiver.answer = (_request, index) => (index === 0 ? first : then);
    const made = await postJson(`${server.url}/api/webhooks`, { url: receiver.url, events: ['product.created'] });
    assert.equal(made.status, 201);
    return { id: Number(((await made.json()) as Json)['id']), receiver };
  };
  const log = async (id: number): Promise<Json[]> => (await (await fetch(`${server.url}/api/webhooks/${id}/deliveries`)).json()) as Json[];
  const settled = (what: string, check: () => Promise<boolean>): Promise<void> => eventually(what, check, 20_000, 50);
  const retry = (id: number, eventId: string): Promise<Response> => fetch(`${server.url}/api/webhooks/${id}/deliveries/${eventId}/retry`, { method: 'POST' });
  try {
    const delivered = await subscribe({ status: 200 });
    const failed = await subscribe({ status: 500 });
    // Pending past the expiry: one for an hour, one until a few seconds after it (then delivered).
    const waiting = await subscribe({ status: 503, headers: { 'retry-after': '3600' } });
    const late = await subscribe({ status: 503, headers: { 'retry-after': '14' } }, { status: 200 });
    const paused = await subscribe({ status: 503, headers: { 'retry-after': '3600' } });
    const made = (await (await postJson(`${server.url}/api/products`, { name: 'kept a while', priceInCents: 1 })).json()) as Json;
    const recordedAt = Date.parse(String(made['createdAt']));
    await settled('the first attempts made and recorded', async () => {
      const [a, b, c, d, e] = (await Promise.all([delivered, failed, waiting, late, paused].map(({ id }) => log(id)))).map((entries) => entries[0]);
      return a?.['status'] === 2 && b?.['status'] === 3 && [c, d, e].every((entry) => entry?.['attempts'] === 1);
    });
    const eventId = String((await log(delivered.id))[0]?.['eventId']);
    assert.equal((await patchJson(`${server.url}/api/webhooks/${paused.id}`, { status: 2 })).status, 200);

    // Expired, still in the log (or not yet swept): a retry is 410 before anything else, and sends nothing.
    await sleep(recordedAt + 10_500 - Date.now());
    for (const { id } of [delivered, failed, paused]) {
      await assertProblem(await retry(id, eventId), 410, 'events_expired', `/api/webhooks/${id}/deliveries/${eventId}/retry`);
    }
    // Gone within a minute, by the serving process: the ended ones; the disabled webhook's, failed first.
    await eventually('the ended deliveries of the expired event deleted', async () => (await log(delivered.id)).length === 0 && (await log(failed.id)).length === 0, 60_000, 250);
    await eventually('the disabled webhook\'s delivery failed, then deleted', async () => (await log(paused.id)).length === 0, 60_000, 250);
    // A pending one is kept, and its next attempt sends the same bytes; once delivered it goes too.
    const [pending] = await log(waiting.id);
    assert.deepEqual([pending?.['eventId'], pending?.['status']], [eventId, 1], 'a pending delivery outlives its event');
    const [firstTry, secondTry] = await late.receiver.waitFor(2, 30_000);
    assert.equal(secondTry?.body, firstTry?.body);
    assert.ok((secondTry?.at ?? 0) > recordedAt + 10_000, 'attempted after its event expired');
    await eventually('the late delivery deleted once delivered', async () => (await log(late.id)).length === 0, 60_000, 250);

    // Gone from the log: still 410, whatever the webhook's state; enabling the paused webhook sends nothing.
    for (const { id } of [delivered, paused]) {
      await assertProblem(await retry(id, eventId), 410, 'events_expired', `/api/webhooks/${id}/deliveries/${eventId}/retry`);
    }
    assert.equal((await patchJson(`${server.url}/api/webhooks/${paused.id}`, { status: 1 })).status, 200);
    // 404: an event still kept that the webhook has no delivery of (it takes product.created only), and one never issued.
    const kept = await patchJson(`${server.url}/api/products/${String(made['id'])}`, { name: 'renamed, not created' });
    assert.equal(kept.status, 200);
    // (On PostgreSQL an event shows once every older transaction of the cluster has ended: follow until it does.)
    const [newest] = (await followUntil(server.url, '/api/events', (events) => events.length >= 1)).events;
    for (const unknown of [String(newest?.id), `${String(newest?.id)}9`]) {
      assert.equal((await retry(delivered.id, unknown)).status, 404, unknown);
    }
    await sleep(500);
    assert.deepEqual(
      [delivered, failed, waiting, late, paused].map(({ receiver }) => receiver.received.length),
      [1, 2, 1, 2, 1],
      'nothing sent by a retry of an expired event, nor on enabling again',
    );
  } finally {
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await server.stop();
  }
});
