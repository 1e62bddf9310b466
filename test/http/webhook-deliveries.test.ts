import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { patchJson, postJson, startTestServer, type TestServer } from '../support/server.ts';
import { eventually, type Received, startReceiver, type Receiver, verifyDelivery } from '../support/webhook-receiver.ts';

type Json = Record<string, unknown>;

// Receivers on 127.0.0.1 need SVC_WEBHOOK_ALLOW_PRIVATE; the schedule is compressed to keep tests short.
const ENV = { SVC_WEBHOOK_ALLOW_PRIVATE: 'true', SVC_WEBHOOK_RETRY_SCHEDULE: '100ms,200ms', SVC_WEBHOOK_TIMEOUT_MS: '1500' };

describe('webhook deliveries', () => {
  let server: TestServer;
  let receiver: Receiver;
  const hooks: number[] = [];
  before(async () => {
    server = await startTestServer(ENV);
  });
  after(() => server.stop());
  afterEach(async () => {
    for (const id of hooks.splice(0)) await fetch(`${server.url}/api/webhooks/${id}`, { method: 'DELETE' });
    await receiver?.close();
  });

  const subscribe = async (body: Json): Promise<{ id: number; secret: string }> => {
    const response = await postJson(`${server.url}/api/webhooks`, body);
    assert.equal(response.status, 201);
    const webhook = (await response.json()) as Json;
    hooks.push(webhook['id'] as number);
    return { id: webhook['id'] as number, secret: webhook['secret'] as string };
  };
  const product = async (name = 'lamp'): Promise<Json> => {
    const response = await postJson(`${server.url}/api/products`, { name, priceInCents: 100 });
    assert.equal(response.status, 201);
    return (await response.json()) as Json;
  };
  // A product's second event: its price changed.
  const change = async (made: Json, priceInCents: number): Promise<Json> => {
    const response = await patchJson(`${server.url}/api/products/${String(made['id'])}`, { priceInCents });
    assert.equal(response.status, 200);
    return (await response.json()) as Json;
  };
  const log = async (id: number, query = ''): Promise<Json[]> => (await (await fetch(`${server.url}/api/webhooks/${id}/deliveries${query}`)).json()) as Json[];
  const settled = (id: number, status: number, count = 1): Promise<Json[]> =>
    eventually(async () => {
      const entries = await log(id);
      return entries.length >= count && entries.every((entry) => entry['status'] === status) ? entries : undefined;
    }, 20_000, `deliveries of webhook ${id} in status ${status}`);

  test('each event is POSTed once, signed as Standard Webhooks: verified by the standardwebhooks package, the body the Event', async () => {
    receiver = await startReceiver();
    const { id, secret } = await subscribe({ url: receiver.url });
    const made = await product('first');
    await change(made, 101);
    const [first, second] = await receiver.waitFor(2);
    for (const request of [first, second] as Received[]) {
      const event = verifyDelivery(secret, request) as Json;
      assert.equal(request.headers['content-type'], 'application/json');
      assert.equal(request.headers['webhook-id'], event['id']);
      assert.match(String(request.headers['webhook-timestamp']), /^\d{10}$/);
      assert.ok(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000) < 60);
      assert.deepEqual(Object.keys(event), ['id', 'type', 'createdAt', 'data']);
    }
    const types = [first, second].map((request) => (JSON.parse((request as Received).body) as Json)['type']).sort();
    assert.deepEqual(types, ['product.created', 'product.updated']);
    const created = [first, second].map((request) => JSON.parse((request as Received).body) as Json).find((event) => event['type'] === 'product.created');
    assert.deepEqual(created?.['data'], made);
    const entries = await settled(id, 2, 2);
    assert.deepEqual(Object.keys(entries[0] as Json), ['eventId', 'eventType', 'status', 'attempts', 'lastAttemptAt', 'lastResponseStatus', 'nextAttemptAt']);
    assert.deepEqual(entries.map((entry) => [entry['attempts'], entry['lastResponseStatus'], entry['nextAttemptAt']]), [[1, 200, null], [1, 200, null]]);
    assert.deepEqual(entries.map((entry) => entry['eventType']), ['product.updated', 'product.created']);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(receiver.received.length, 2);
  });

  test('a webhook gets only the types it takes; a disabled one, nothing; a deleted one, nothing more', async () => {
    receiver = await startReceiver();
    const { id } = await subscribe({ url: receiver.url, events: ['product.updated'] });
    const disabled = await subscribe({ url: `${receiver.url}/disabled`, status: 2 });
    const made = await product();
    await change(made, 101);
    const [request] = await receiver.waitFor(1);
    assert.equal((JSON.parse((request as Received).body) as Json)['type'], 'product.updated');
    assert.equal((await fetch(`${server.url}/api/webhooks/${id}`, { method: 'DELETE' })).status, 204);
    await change(made, 102);
    await new Promise((resolve) => setTimeout(resolve, 800));
    assert.equal(receiver.received.length, 1);
    assert.deepEqual(await log(disabled.id), []);
  });

  test('a 500, a redirect (never followed), a timeout: attempted again with the same webhook-id, until a 2xx', async () => {
    receiver = await startReceiver();
    const plan = [{ status: 500 }, { status: 302, headers: { location: `${receiver.url}/elsewhere` } }, 'hang'] as const;
    receiver.answer = (_request, index) => plan[index] ?? { status: 204 };
    const { id, secret } = await subscribe({ url: receiver.url });
    await product();
    // The schedule has two delays: four attempts would be one too many, so the fourth is a manual retry below.
    const attempts = await receiver.waitFor(3);
    assert.equal(new Set(attempts.map((request) => request.headers['webhook-id'])).size, 1);
    for (const request of attempts) verifyDelivery(secret, request);
    assert.ok(attempts.every((request) => !request.headers['host']?.includes('elsewhere')));
    const [failed] = await settled(id, 3);
    assert.deepEqual([failed?.['attempts'], failed?.['lastResponseStatus'], failed?.['nextAttemptAt']], [3, null, null]);
    const retry = await fetch(`${server.url}/api/webhooks/${id}/deliveries/${failed?.['eventId']}/retry`, { method: 'POST' });
    assert.equal(retry.status, 202);
    const pending = (await retry.json()) as Json;
    assert.deepEqual([pending['status'], pending['attempts']], [1, 3]);
    assert.match(String(pending['nextAttemptAt']), /Z$/);
    const [, , , fourth] = await receiver.waitFor(4);
    assert.equal(fourth?.headers['webhook-id'], failed?.['eventId']);
    const [delivered] = await settled(id, 2);
    assert.deepEqual([delivered?.['attempts'], delivered?.['lastResponseStatus']], [4, 204]);
    assert.deepEqual(await log(id, '?status=3'), []);
    assert.equal((await log(id, '?status=2')).length, 1);
  });

  test('a refused connection is a failed attempt; after the schedule the delivery is failed (3 attempts for 2 delays); a manual retry starts the schedule again', async () => {
    receiver = await startReceiver();
    const closedPort = receiver.port;
    await receiver.close();
    const { id } = await subscribe({ url: `http://127.0.0.1:${closedPort}/gone-away` });
    await product();
    const [failed] = await settled(id, 3);
    assert.deepEqual([failed?.['attempts'], failed?.['lastResponseStatus'], failed?.['nextAttemptAt']], [3, null, null]);
    const lines = server.logs.filter((line) => line['msg'] === 'webhook delivery attempt failed' && line['webhookId'] === id);
    assert.deepEqual(lines.map((line) => line['outcome']), ['retried', 'retried', 'failed']);
    for (const line of lines) {
      assert.equal(line['host'], `127.0.0.1:${closedPort}`);
      assert.equal(line['eventId'], failed?.['eventId']);
      assert.ok(!JSON.stringify(line).includes('gone-away'), 'the full URL is never logged');
    }
    // A manual retry starts the schedule again: three more attempts, not one.
    assert.equal((await fetch(`${server.url}/api/webhooks/${id}/deliveries/${failed?.['eventId']}/retry`, { method: 'POST' })).status, 202);
    const again = await eventually(async () => {
      const [entry] = await log(id);
      return entry?.['status'] === 3 && entry['attempts'] !== 3 ? entry : undefined;
    }, 20_000, 'the retried delivery failed again');
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal((await log(id))[0]?.['attempts'], 6, JSON.stringify(again));
    receiver = await startReceiver();
  });

  test('Retry-After on a 429 or 503 makes the next attempt later, never earlier', async () => {
    receiver = await startReceiver();
    receiver.answer = (_request, index) => (index === 0 ? { status: 503, headers: { 'retry-after': '2' } } : { status: 200 });
    const { id } = await subscribe({ url: receiver.url });
    await product();
    const [first, second] = await receiver.waitFor(2, 20_000);
    assert.ok((second as Received).at - (first as Received).at >= 1_900, `${(second as Received).at - (first as Received).at} ms apart`);
    await settled(id, 2);
  });

  test('a 410 disables the webhook: that delivery failed, the others wait with nextAttemptAt null, events while disabled never sent; enabling resumes', async () => {
    receiver = await startReceiver();
    let enabledAgain = false;
    const nameOf = (request: Received): unknown => ((JSON.parse(request.body) as Json)['data'] as Json)['name'];
    // "held" hangs (in flight while the webhook is disabled), "gone" answers 410.
    receiver.answer = (request) => (enabledAgain ? { status: 200 } : nameOf(request) === 'gone' ? { status: 410 } : 'hang');
    const { id } = await subscribe({ url: receiver.url });
    await product('held');
    await receiver.waitFor(1);
    await product('gone');
    const webhook = await eventually(async () => {
      const body = (await (await fetch(`${server.url}/api/webhooks/${id}`)).json()) as Json;
      return body['status'] === 2 ? body : undefined;
    }, 20_000, 'the webhook disabled');
    assert.equal(webhook['status'], 2);
    const entries = await eventually(async () => {
      const all = await log(id);
      return all.length === 2 && all.every((entry) => entry['attempts'] === 1) ? all : undefined;
    }, 20_000, 'both attempts recorded');
    const [held, gone] = [entries[1] as Json, entries[0] as Json];
    assert.deepEqual([gone['status'], gone['lastResponseStatus'], gone['nextAttemptAt']], [3, 410, null]);
    assert.deepEqual([held['status'], held['lastResponseStatus'], held['nextAttemptAt']], [1, null, null]);
    const retry = await fetch(`${server.url}/api/webhooks/${id}/deliveries/${held['eventId']}/retry`, { method: 'POST' });
    assert.deepEqual([retry.status, ((await retry.json()) as Json)['code']], [409, 'webhook_disabled']);
    await product('while disabled');
    await new Promise((resolve) => setTimeout(resolve, 800));
    assert.equal((await log(id)).length, 2);
    assert.equal(receiver.received.length, 2);
    enabledAgain = true;
    assert.equal((await patchJson(`${server.url}/api/webhooks/${id}`, { status: 1 })).status, 200);
    const [, , resumed] = await receiver.waitFor(3);
    assert.equal(resumed?.headers['webhook-id'], held['eventId']);
    // Enabled again, it takes new events again (never the one recorded while it was disabled).
    await product('enabled again');
    await receiver.waitFor(4);
    await new Promise((resolve) => setTimeout(resolve, 800));
    assert.deepEqual(receiver.received.map(nameOf), ['held', 'gone', 'held', 'enabled again']);
  });

  test('a 410 pauses a delivery that waits for its retry (nextAttemptAt null, not an hour ahead); enabling sends it at once; a PATCH that disables pauses it the same way', async () => {
    receiver = await startReceiver();
    const nameOf = (request: Received): string => String(((JSON.parse(request.body) as Json)['data'] as Json)['name']);
    const seen = new Map<string, number>();
    // The first attempt of each "waits" is put off an hour (Retry-After); "gone" answers 410; the rest 200.
    receiver.answer = (request) => {
      const name = nameOf(request);
      seen.set(name, (seen.get(name) ?? 0) + 1);
      if (name === 'gone') return { status: 410 };
      return name.startsWith('waits') && seen.get(name) === 1 ? { status: 503, headers: { 'retry-after': '3600' } } : { status: 200 };
    };
    const { id } = await subscribe({ url: receiver.url });
    const waiting = async (name: string): Promise<Json> => {
      await product(name);
      return eventually(async () => {
        const entry = (await log(id)).find((candidate) => candidate['attempts'] === 1 && candidate['status'] === 1 && candidate['nextAttemptAt'] !== null);
        return entry !== undefined && Date.parse(String(entry['nextAttemptAt'])) > Date.now() + 3_000_000 ? entry : undefined;
      }, 20_000, `${name} waiting an hour for its retry`);
    };
    const resumed = async (eventId: unknown, count: number): Promise<void> => {
      assert.equal((await patchJson(`${server.url}/api/webhooks/${id}`, { status: 1 })).status, 200);
      const requests = await receiver.waitFor(count);
      assert.equal(requests.at(-1)?.headers['webhook-id'], eventId, 'sent at once when enabled again');
      await eventually(async () => ((await log(id)).find((entry) => entry['eventId'] === eventId)?.['status'] === 2 ? true : undefined), 20_000, 'recorded delivered');
    };
    const paused = async (eventId: unknown): Promise<void> => {
      const entry = (await log(id)).find((candidate) => candidate['eventId'] === eventId);
      assert.deepEqual([entry?.['status'], entry?.['nextAttemptAt']], [1, null], 'paused: nothing planned');
    };

    const first = await waiting('waits');
    await product('gone');
    await eventually(async () => (((await (await fetch(`${server.url}/api/webhooks/${id}`)).json()) as Json)['status'] === 2 ? true : undefined), 20_000, 'disabled by the 410');
    await paused(first['eventId']);
    await resumed(first['eventId'], 3);

    const second = await waiting('waits again');
    assert.equal((await patchJson(`${server.url}/api/webhooks/${id}`, { status: 2 })).status, 200);
    await paused(second['eventId']);
    await resumed(second['eventId'], 5);
    assert.deepEqual(receiver.received.map(nameOf), ['waits', 'gone', 'waits', 'waits again', 'waits again']);
  });

  test('a manual retry of a delivered delivery sends it again: the same webhook-id and bytes, one attempt more, delivered', async () => {
    receiver = await startReceiver();
    const { id } = await subscribe({ url: receiver.url });
    await product('delivered once');
    const [entry] = await settled(id, 2);
    const retried = await fetch(`${server.url}/api/webhooks/${id}/deliveries/${entry?.['eventId']}/retry`, { method: 'POST' });
    assert.equal(retried.status, 202);
    const [first, again] = await receiver.waitFor(2);
    assert.deepEqual([again?.headers['webhook-id'], again?.body], [first?.headers['webhook-id'], first?.body]);
    const [after] = await eventually(async () => {
      const entries = await log(id);
      return entries[0]?.['attempts'] === 2 && entries[0]['status'] === 2 ? entries : undefined;
    }, 20_000, 'the second attempt recorded');
    assert.deepEqual([after?.['attempts'], after?.['lastResponseStatus'], after?.['nextAttemptAt']], [2, 200, null]);
  });

  test('rotation: both secrets sign while the previous one is kept (two v1 signatures), then the new one alone', async () => {
    receiver = await startReceiver();
    const { id, secret: old } = await subscribe({ url: receiver.url });
    const rotated = (await (await postJson(`${server.url}/api/webhooks/${id}/rotate-secret`, { keepCurrentForSeconds: 3600 })).json()) as Json;
    const fresh = rotated['secret'] as string;
    await product('rotating');
    const [during] = await receiver.waitFor(1);
    const signatures = String(during?.headers['webhook-signature']).split(' ');
    assert.equal(signatures.length, 2);
    assert.ok(signatures.every((signature) => signature.startsWith('v1,')));
    verifyDelivery(old, during as Received);
    verifyDelivery(fresh, during as Received);
    // A second rotation during the grace period keeps only the secret it replaces, not the first one.
    const second = (await (await postJson(`${server.url}/api/webhooks/${id}/rotate-secret`, { keepCurrentForSeconds: 3600 })).json()) as Json;
    await product('rotated twice');
    const [, twice] = await receiver.waitFor(2);
    assert.equal(String(twice?.headers['webhook-signature']).split(' ').length, 2);
    verifyDelivery(second['secret'] as string, twice as Received);
    verifyDelivery(fresh, twice as Received);
    assert.throws(() => verifyDelivery(old, twice as Received));
    const again = (await (await postJson(`${server.url}/api/webhooks/${id}/rotate-secret`, { keepCurrentForSeconds: 0 })).json()) as Json;
    await product('rotated');
    const [, , after] = await receiver.waitFor(3);
    assert.equal(String(after?.headers['webhook-signature']).split(' ').length, 1);
    verifyDelivery(again['secret'] as string, after as Received);
    assert.throws(() => verifyDelivery(second['secret'] as string, after as Received));
    assert.throws(() => verifyDelivery(fresh, after as Received));
    assert.throws(() => verifyDelivery(old, after as Received));
  });

  test('the secret appears in no log line', async () => {
    receiver = await startReceiver();
    receiver.answer = () => ({ status: 500 });
    const { id, secret } = await subscribe({ url: receiver.url });
    await product();
    await settled(id, 3);
    const text = JSON.stringify(server.logs);
    assert.ok(!text.includes(secret) && !text.includes(secret.slice(6)));
  });
});
