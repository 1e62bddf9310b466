import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { closeDatabase } from '../../src/db/engine.ts';
import { startWebhookDeliveries } from '../../src/index.ts';
import { scrape } from '../support/scrape.ts';
import { patchJson, postJson, startTestServer } from '../support/server.ts';
import { createTestDatabase } from '../support/test-database.ts';
import { eventually, startReceiver, verifyDelivery } from '../support/webhook-receiver.ts';

type Json = Record<string, unknown>;
const ENV = { SVC_WEBHOOK_ALLOW_PRIVATE: 'true', SVC_WEBHOOK_RETRY_SCHEDULE: '100ms,200ms' };

describe('webhook deliveries: fairness, metrics, embedding', () => {
  test('a receiver that never answers does not slow deliveries to another', async () => {
    // Unfair, the slow webhook's backlog would hold every slot for 5 s at a time.
    const server = await startTestServer({ ...ENV, SVC_WEBHOOK_TIMEOUT_MS: '5000' });
    const slow = await startReceiver();
    const healthy = await startReceiver();
    slow.answer = () => 'hang';
    try {
      assert.equal((await postJson(`${server.url}/api/webhooks`, { url: slow.url, events: ['product.created'] })).status, 201);
      let backlog = 0;
      assert.equal((await postJson(`${server.url}/api/webhooks`, { url: healthy.url, events: ['product.updated'] })).status, 201);
      for (let i = 0; i < 60; i++) backlog = ((await (await postJson(`${server.url}/api/products`, { name: `backlog ${i}`, priceInCents: 1 })).json()) as { id: number }).id;
      await slow.waitFor(1);
      const sentAt = Date.now();
      // The healthy webhook's one event: a change of a product of the backlog.
      assert.equal((await patchJson(`${server.url}/api/products/${String(backlog)}`, { name: 'urgent' })).status, 200);
      const [delivered] = await healthy.waitFor(1, 20_000);
      const latency = (delivered?.at ?? Infinity) - sentAt;
      assert.ok(latency < 3_000, `the healthy receiver waited ${latency} ms`);
      assert.ok(slow.received.length < 60);
    } finally {
      await server.stop();
      await slow.close();
      await healthy.close();
    }
  });

  test('metrics: webhook_deliveries_total by outcome and webhook_oldest_pending_seconds; never a secret', async () => {
    const server = await startTestServer({ ...ENV, SVC_METRICS_PORT: '0' });
    const receiver = await startReceiver();
    receiver.answer = (request) => (String(JSON.parse(request.body).data.name) === 'fails' ? { status: 500 } : { status: 200 });
    try {
      const webhook = (await (await postJson(`${server.url}/api/webhooks`, { url: receiver.url })).json()) as Json;
      await postJson(`${server.url}/api/products`, { name: 'works', priceInCents: 1 });
      await postJson(`${server.url}/api/products`, { name: 'fails', priceInCents: 1 });
      const metricsUrl = server.metricsUrl ?? '';
      const counted = await eventually(async () => {
        const figures = await scrape(metricsUrl);
        return figures.value('webhook_deliveries_total', { outcome: 'failed' }) === 1 ? figures : undefined;
      }, 20_000, 'the failed delivery counted');
      assert.equal(counted.value('webhook_deliveries_total', { outcome: 'delivered' }), 1);
      assert.equal(counted.value('webhook_deliveries_total', { outcome: 'retried' }), 2);
      assert.equal(counted.value('webhook_deliveries_total', { outcome: 'disabled' }), 0);
      assert.ok(!counted.text.includes(String(webhook['secret']).slice(6)));
    } finally {
      await server.stop();
      await receiver.close();
    }
  });

  test('metrics: a 410 counts as disabled (not failed), in the log line too; the oldest pending delivery\'s age in seconds, back to 0 once it ends', async () => {
    const server = await startTestServer({ ...ENV, SVC_METRICS_PORT: '0' });
    const gone = await startReceiver();
    gone.answer = () => ({ status: 410 });
    const waits = await startReceiver();
    waits.answer = (_request, index) => (index === 0 ? { status: 503, headers: { 'retry-after': '3600' } } : { status: 200 });
    try {
      const subscribe = async (url: string, events: string[]): Promise<number> => Number(((await (await postJson(`${server.url}/api/webhooks`, { url, events })).json()) as Json)['id']);
      const goneId = await subscribe(gone.url, ['product.updated']);
      const waitsId = await subscribe(waits.url, ['product.created']);
      const product = (await (await postJson(`${server.url}/api/products`, { name: 'waits an hour', priceInCents: 1 })).json()) as Json;
      assert.equal((await patchJson(`${server.url}/api/products/${String(product['id'])}`, { name: 'gone' })).status, 200);
      const metricsUrl = server.metricsUrl ?? '';
      const counted = await eventually(async () => {
        const figures = await scrape(metricsUrl);
        return figures.value('webhook_deliveries_total', { outcome: 'disabled' }) === 1 ? figures : undefined;
      }, 20_000, 'the 410 counted');
      assert.deepEqual(['failed', 'retried', 'delivered'].map((outcome) => counted.value('webhook_deliveries_total', { outcome })), [0, 1, 0]);
      const line = server.logs.find((entry) => entry['msg'] === 'webhook delivery attempt failed' && entry['webhookId'] === goneId);
      assert.deepEqual([line?.['outcome'], line?.['reason'], line?.['status']], ['disabled', 'gone', 410]);

      // Read every 5 s: once it shows the waiting delivery, it is that delivery's event's age, in seconds.
      const recordedAt = Date.parse(String(product['createdAt']));
      const aged = await eventually(async () => {
        const before = Date.now();
        const value = (await scrape(metricsUrl)).value('webhook_oldest_pending_seconds');
        return value > 0 ? { value, before, after: Date.now() } : undefined;
      }, 20_000, 'the waiting delivery in the gauge');
      assert.ok(aged.value >= (aged.before - recordedAt) / 1000 - 0.01 && aged.value <= (aged.after - recordedAt) / 1000 + 0.01, `${aged.value} s`);
      const [entry] = (await (await fetch(`${server.url}/api/webhooks/${waitsId}/deliveries`)).json()) as Json[];
      assert.equal((await fetch(`${server.url}/api/webhooks/${waitsId}/deliveries/${entry?.['eventId']}/retry`, { method: 'POST' })).status, 202);
      await waits.waitFor(2);
      await eventually(async () => ((await scrape(metricsUrl)).value('webhook_oldest_pending_seconds') === 0 ? true : undefined), 20_000, 'the gauge back to 0');
    } finally {
      await server.stop();
      await gone.close();
      await waits.close();
    }
  });

  test('an embedding program that uses createApp alone starts deliveries with startWebhookDeliveries, and stops them', async () => {
    const database = await createTestDatabase();
    const db = database.open();
    const config = loadConfig({ ...database.env, ...ENV, SVC_LOG_LEVEL: 'silent' });
    const app = createApp({ db, config });
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const receiver = await startReceiver();
    try {
      const webhook = (await (await postJson(`${base}/api/webhooks`, { url: receiver.url })).json()) as Json;
      await postJson(`${base}/api/products`, { name: 'before', priceInCents: 1 });
      await new Promise((resolve) => setTimeout(resolve, 600));
      assert.equal(receiver.received.length, 0, 'createApp alone sends nothing');
      const deliveries = startWebhookDeliveries({ db, config });
      const [request] = await receiver.waitFor(1);
      verifyDelivery(webhook['secret'] as string, request as never);
      await deliveries.stop();
      await postJson(`${base}/api/products`, { name: 'after the stop', priceInCents: 1 });
      await new Promise((resolve) => setTimeout(resolve, 600));
      assert.equal(receiver.received.length, 1);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await receiver.close();
      await closeDatabase(db);
      await database.drop();
    }
  });
});
