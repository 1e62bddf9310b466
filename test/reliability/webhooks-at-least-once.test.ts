import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ServeProcess, spawnServe, urlOf } from '../ops/support.ts';
import { feedBytesOf } from '../support/feed-bytes.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';
import { TEST_ENGINE } from '../support/test-engine.ts';
import { fillDeliveryLog } from '../support/webhook-log.ts';
import { eventually, startReceiver, type Receiver, verifyDelivery } from '../support/webhook-receiver.ts';

type Json = Record<string, unknown>;

// Receivers on 127.0.0.1; a compressed schedule; a short timeout, so a killed process's lease ends soon.
const ENV = { SVC_WEBHOOK_ALLOW_PRIVATE: 'true', SVC_WEBHOOK_RETRY_SCHEDULE: '200ms,300ms,500ms,1s,1s,1s,1s,1s,1s,1s', SVC_WEBHOOK_TIMEOUT_MS: '1000' };

async function post(base: string, path: string, body: unknown): Promise<Json> {
  const response = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(response.status, 201, await response.clone().text());
  return (await response.json()) as Json;
}

/** Creates `count` products, `parallel` at a time; every one acknowledged (201). */
async function createProducts(base: string, count: number, parallel = 16): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const index = next++;
      await post(base, '/api/products', { name: `product ${index}`, priceInCents: index });
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

async function eventIds(database: TestDatabase): Promise<Set<string>> {
  const rows = await database.sql('SELECT event_id FROM webhook_deliveries');
  return new Set(rows.map((row) => String(row[0])));
}

describe('webhook deliveries at least once: crashes and a receiver that is down', () => {
  let database: TestDatabase;
  let receiver: Receiver;
  const processes: ServeProcess[] = [];
  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => {
    for (const serve of processes) serve.kill();
    await Promise.all(processes.map((serve) => serve.exited));
    await receiver?.close();
    await database.drop();
  });
  const serve = async (env: Record<string, string> = {}): Promise<{ process: ServeProcess; url: string }> => {
    const started = spawnServe({ ...database.env, ...ENV, ...env });
    processes.push(started);
    return { process: started, url: await urlOf(started) };
  };

  test('SIGKILL while deliveries are in flight to a slow receiver: after a restart every committed event arrives, same webhook-id', async () => {
    receiver = await startReceiver();
    receiver.answer = () => ({ status: 200, delayMs: 400 });
    const first = await serve();
    const webhook = await post(first.url, '/api/webhooks', { url: receiver.url });
    await createProducts(first.url, 40);
    await receiver.waitFor(3);
    first.process.kill();
    await first.process.exited;
    const seenBeforeKill = new Set(receiver.ids());
    const second = await serve();
    const committed = await eventIds(database);
    assert.equal(committed.size, 40);
    await eventually(async () => (committed.size === new Set(receiver.ids()).size ? true : undefined), 60_000, 'every event delivered');
    assert.deepEqual(new Set(receiver.ids()), committed);
    for (const id of seenBeforeKill) assert.ok(committed.has(id));
    for (const request of receiver.received) verifyDelivery(webhook['secret'] as string, request);
    const log = (await (await fetch(`${second.url}/api/webhooks/${webhook['id']}/deliveries?limit=200`)).json()) as Json[];
    await eventually(async () => {
      const entries = (await (await fetch(`${second.url}/api/webhooks/${webhook['id']}/deliveries?limit=200`)).json()) as Json[];
      return entries.every((entry) => entry['status'] === 2) ? true : undefined;
    }, 30_000, 'every delivery recorded as delivered');
    assert.equal(log.length, 40);
    second.process.kill();
    await second.process.exited;
    await receiver.close();
    await fetch(`${second.url}/api/webhooks/${webhook['id']}`, { method: 'DELETE' }).catch(() => undefined);
  });

  test('the receiver down for a while, then up: everything arrives', async () => {
    receiver = await startReceiver();
    const port = receiver.port;
    const running = await serve();
    const webhook = await post(running.url, '/api/webhooks', { url: receiver.url });
    await receiver.close();
    await createProducts(running.url, 20);
    // Refused connections meanwhile: attempts fail and are planned again.
    await eventually(async () => {
      const entries = (await (await fetch(`${running.url}/api/webhooks/${webhook['id']}/deliveries?limit=200`)).json()) as Json[];
      return entries.length === 20 && entries.every((entry) => Number(entry['attempts']) >= 2) ? true : undefined;
    }, 30_000, 'every delivery attempted twice while the receiver is down');
    receiver = await startReceiver(port);
    await eventually(async () => (new Set(receiver.ids()).size === 20 ? true : undefined), 30_000, 'everything delivered once the receiver is up');
    for (const request of receiver.received) verifyDelivery(webhook['secret'] as string, request);
    running.process.kill();
  });
});

// A delivery is made in its webhook's version as its row keeps it (docs/webhooks.md): a process killed
// after the events were recorded, one attempt on the wire and the others not yet made, leaves them to a
// process with another SVC_API_VERSION, which sends the same bytes in the webhook's version.
describe('a delivery\'s version and bytes through a SIGKILL between its record and its delivery', () => {
  let database: TestDatabase;
  let receiver: Receiver;
  const processes: ServeProcess[] = [];
  before(async () => {
    database = await createTestDatabase();
    receiver = await startReceiver();
  });
  after(async () => {
    for (const serve of processes) serve.kill();
    await Promise.all(processes.map((serve) => serve.exited));
    await receiver.close();
    await database.drop();
  });

  test('SIGKILL with one attempt hanging and two not yet made: after a restart each arrives in the webhook\'s version, the feed\'s bytes', async () => {
    const [LISTS, NEWEST] = ['2026-11-28', '2026-12-05'];
    const first = spawnServe({ ...database.env, ...ENV });
    processes.push(first);
    const base = await urlOf(first);
    const made = await fetch(`${base}/api/webhooks`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'api-version': NEWEST }, body: JSON.stringify({ url: receiver.url }),
    });
    assert.equal(made.status, 201);
    const webhook = (await made.json()) as Json;
    receiver.answer = () => 'hang';
    await createProducts(base, 3, 1);
    // A webhook that has never answered has one attempt in flight: the others wait, recorded.
    await receiver.waitFor(1);
    first.kill();
    await first.exited;
    receiver.answer = () => ({ status: 200 });
    const second = spawnServe({ ...database.env, ...ENV, SVC_API_VERSION: LISTS });
    processes.push(second);
    const restarted = await urlOf(second);
    const committed = await eventIds(database);
    assert.equal(committed.size, 3);
    await eventually(async () => (new Set(receiver.ids()).size === 3 && receiver.received.length >= 4 ? true : undefined), 60_000, 'every event delivered, the hung one again');
    for (const id of committed) {
      const attempts = receiver.received.filter((request) => String(request.headers['webhook-id']) === id);
      const bytes = await feedBytesOf(restarted, id, NEWEST);
      for (const attempt of attempts) {
        verifyDelivery(webhook['secret'] as string, attempt);
        assert.deepEqual([attempt.headers['api-version'], attempt.body], [NEWEST, bytes], `event ${id}`);
      }
    }
  });
});

// SQLite: two workers of one primary; PostgreSQL: three separate bin/serve.js nodes on one database.
describe('exactly once in the ordinary case: several processes, a thousand creates, a receiver that answers 200', () => {
  let database: TestDatabase;
  let receiver: Receiver;
  const processes: ServeProcess[] = [];
  before(async () => {
    database = await createTestDatabase();
    receiver = await startReceiver();
  });
  after(async () => {
    for (const serve of processes) serve.kill();
    await Promise.all(processes.map((serve) => serve.exited));
    await receiver.close();
    await database.drop();
  });

  test(TEST_ENGINE === 'postgres' ? 'three nodes on one PostgreSQL' : 'SVC_WORKERS=2 on SQLite', async () => {
    const nodes = TEST_ENGINE === 'postgres' ? 3 : 1;
    // The default timeout (10 s): an answer "in time" on a machine this loaded.
    const env = { ...database.env, ...ENV, SVC_WEBHOOK_TIMEOUT_MS: '10000', ...(TEST_ENGINE === 'postgres' ? {} : { SVC_WORKERS: '2' }) };
    for (let i = 0; i < nodes; i++) processes.push(spawnServe(env));
    const urls = await Promise.all(processes.map(urlOf));
    const webhook = await post(urls[0] as string, '/api/webhooks', { url: receiver.url });
    await Promise.all(urls.map((url, index) => createProducts(url, Math.floor(1000 / nodes) + (index < 1000 % nodes ? 1 : 0), 8)));
    await eventually(async () => (new Set(receiver.ids()).size === 1000 ? true : undefined), 120_000, 'a thousand deliveries');
    // Late duplicates would come now, if at all.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const ids = receiver.ids();
    const failures = processes.flatMap((serve) => serve.lines.filter((line) => line['msg'] === 'webhook delivery attempt failed'));
    const reasons = [...new Set(failures.map((line) => `${line['outcome']} ${line['reason']}`))].join(', ');
    assert.equal(ids.length, 1000, `${ids.length - new Set(ids).size} webhook-ids arrived more than once; failed attempts: ${failures.length} (${reasons})`);
    assert.deepEqual(new Set(ids), await eventIds(database));
    for (const request of receiver.received.slice(0, 50)) verifyDelivery(webhook['secret'] as string, request);
  });
});

// A DELETE answers before its webhook's log is gone (the log goes in steps): a process killed at once
// leaves the rest to whichever process sweeps next, and the webhook stays deleted.
describe('a webhook deleted just before a SIGKILL stays deleted, and its log goes after the restart', () => {
  let database: TestDatabase;
  let receiver: Receiver;
  const processes: ServeProcess[] = [];
  before(async () => {
    database = await createTestDatabase();
    receiver = await startReceiver();
  });
  after(async () => {
    for (const serve of processes) serve.kill();
    await Promise.all(processes.map((serve) => serve.exited));
    await receiver.close();
    await database.drop();
  });

  test('SIGKILL right after the 204, while its log is being removed', { timeout: 180_000 }, async () => {
    const first = spawnServe({ ...database.env, ...ENV });
    processes.push(first);
    const base = await urlOf(first);
    const webhook = await post(base, '/api/webhooks', { url: receiver.url });
    const id = Number(webhook['id']);
    await fillDeliveryLog(database, id, 100_000);
    assert.equal((await fetch(`${base}/api/webhooks/${id}`, { method: 'DELETE' })).status, 204);
    first.kill();
    await first.exited;
    const logOf = (): Promise<number> => database.countRows('webhook_deliveries', `webhook_id = ${id}`);
    assert.ok((await logOf()) > 0, 'killed while the log was being removed');

    const second = spawnServe({ ...database.env, ...ENV });
    processes.push(second);
    const restarted = await urlOf(second);
    assert.equal((await fetch(`${restarted}/api/webhooks/${id}`)).status, 404);
    await post(restarted, '/api/products', { name: 'after the restart', priceInCents: 1 });
    await eventually(async () => ((await logOf()) === 0 ? true : undefined), 60_000, 'the rest of the log removed by the next sweep');
    await eventually(async () => ((await database.countRows('webhooks', `id = ${id}`)) === 0 ? true : undefined), 30_000, 'the webhook row removed');
    assert.equal(receiver.received.length, 0, 'nothing sent to the deleted webhook');
  });
});
