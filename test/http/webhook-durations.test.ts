import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, afterEach, before, describe, test } from 'node:test';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';
import { eventually, type Received, startReceiver, type Receiver, verifyDelivery } from '../support/webhook-receiver.ts';

type Json = Record<string, unknown>;

// Durations waited out, not compressed away: the default timeout (10 s, so the lease is 15 s), and a
// first retry 2 s after a failed attempt.
const ENV = { SVC_WEBHOOK_ALLOW_PRIVATE: 'true', SVC_WEBHOOK_RETRY_SCHEDULE: '2s' };

const seconds = (ms: number): number => Math.floor(ms / 1000);
const bodyOf = (request: Received | undefined): Json => JSON.parse(request?.body ?? '{}') as Json;

describe('webhook durations: timestamps, grace periods, leases', () => {
  let server: TestServer;
  let receiver: Receiver;
  before(async () => {
    server = await startTestServer(ENV);
  });
  after(() => server.stop());
  afterEach(() => receiver?.close());

  const subscribe = async (): Promise<{ id: number; secret: string }> => {
    const made = await postJson(`${server.url}/api/webhooks`, { url: receiver.url });
    assert.equal(made.status, 201);
    const webhook = (await made.json()) as Json;
    return { id: Number(webhook['id']), secret: String(webhook['secret']) };
  };
  const product = async (name: string): Promise<void> => {
    assert.equal((await postJson(`${server.url}/api/products`, { name, priceInCents: 1 })).status, 201);
  };
  const log = async (id: number): Promise<Json[]> => (await (await fetch(`${server.url}/api/webhooks/${id}/deliveries`)).json()) as Json[];

  test('webhook-timestamp is each attempt\'s own time, not the event\'s: a retry 2 s later carries a later one', async () => {
    receiver = await startReceiver();
    receiver.answer = (_request, index) => (index === 0 ? { status: 500 } : { status: 204 });
    const { secret } = await subscribe();
    await product('stamped');
    const attempts = await receiver.waitFor(2);
    const recordedAt = Date.parse(String(bodyOf(attempts[0])['createdAt']));
    for (const request of attempts) {
      verifyDelivery(secret, request);
      const stamp = Number(request.headers['webhook-timestamp']);
      // Stamped as it was sent: the second it arrived, or the one before (the clock's second may turn in between).
      assert.ok(stamp === seconds(request.at) || stamp === seconds(request.at) - 1, `stamped ${stamp}, arrived ${request.at}`);
    }
    assert.ok(Number(attempts[1]?.headers['webhook-timestamp']) >= seconds(recordedAt) + 2, 'the retry is stamped 2 s or more after the event');
    assert.equal(attempts[1]?.body, attempts[0]?.body, 'the same bytes');
  });

  test('rotation: the previous secret verifies inside its grace period (at once and half-way), and not past it', async () => {
    receiver = await startReceiver();
    const { id, secret: previous } = await subscribe();
    const rotated = await postJson(`${server.url}/api/webhooks/${id}/rotate-secret`, { keepCurrentForSeconds: 4 });
    assert.equal(rotated.status, 200);
    const body = (await rotated.json()) as Json;
    const current = String(body['secret']);
    const graceEnds = Date.parse(String(body['updatedAt'])) + 4_000;
    const signatures = (request: Received | undefined): number => String(request?.headers['webhook-signature']).split(' ').length;

    await product('at once');
    await sleep(graceEnds - 2_000 - Date.now());
    await product('half-way');
    const inside = await receiver.waitFor(2);
    for (const request of inside) {
      assert.ok(Number(request.headers['webhook-timestamp']) * 1000 < graceEnds, 'signed inside the grace period');
      assert.equal(signatures(request), 2, String((bodyOf(request)['data'] as Json)['name']));
      verifyDelivery(previous, request);
      verifyDelivery(current, request);
    }
    await sleep(graceEnds + 300 - Date.now());
    await product('past it');
    const [, , past] = await receiver.waitFor(3);
    assert.equal(signatures(past), 1);
    verifyDelivery(current, past as Received);
    assert.throws(() => verifyDelivery(previous, past as Received), 'the previous secret no longer verifies');
  });

  test('an answer that takes 6 s (inside the 10 s timeout) is one attempt: its lease outlasts it, no second claim, recorded delivered', async () => {
    receiver = await startReceiver();
    const { id } = await subscribe();
    // A first delivery answered at once, so the webhook has answered before (up to 4 attempts may run).
    await product('warm-up');
    await receiver.waitFor(1);
    receiver.answer = () => ({ status: 200, delayMs: 6_000 });
    await product('slow answer');
    const [, slow] = await receiver.waitFor(2);
    const entry = await eventually(async () => {
      const [newest] = await log(id);
      return newest?.['status'] === 2 ? newest : undefined;
    }, 20_000, 'the slow delivery recorded delivered');
    assert.deepEqual([entry['eventId'], entry['attempts'], entry['lastResponseStatus']], [slow?.headers['webhook-id'], 1, 200]);
    assert.ok(Date.now() - (slow?.at ?? 0) >= 6_000);
    await sleep(1_000);
    assert.deepEqual(receiver.ids().filter((webhookId) => webhookId === slow?.headers['webhook-id']), [slow?.headers['webhook-id']], 'sent once');
  });
});
