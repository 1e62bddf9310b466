import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type PostgresCluster, skipWithoutPostgres, startPostgres } from '../support/postgres.ts';
import { eventually, startReceiver, type Receiver, verifyDelivery } from '../support/webhook-receiver.ts';
import { migratedDatabase, type Nodes, post, startNodes } from './support.ts';

const ENV = { SVC_WEBHOOK_ALLOW_PRIVATE: 'true', SVC_WEBHOOK_RETRY_SCHEDULE: '200ms,300ms,500ms,1s,1s,1s,1s,1s,1s,1s', SVC_WEBHOOK_TIMEOUT_MS: '2000' };

// Deliveries are being retried when PostgreSQL goes away (a crash), and comes back: the same
// process claims again by itself, and every event reaches the receiver.
describe('webhook deliveries through a PostgreSQL outage', { skip: skipWithoutPostgres() }, () => {
  let cluster: PostgresCluster;
  let nodes: Nodes;
  let receiver: Receiver;
  before(async () => {
    cluster = await startPostgres();
    nodes = await startNodes(await migratedDatabase(cluster), 1, ENV);
    receiver = await startReceiver();
  });
  after(async () => {
    nodes?.kill();
    await receiver?.close();
    await cluster?.stop();
  });

  test('pending deliveries pause while the database is down and resume by themselves', async () => {
    const [base = ''] = nodes.urls;
    let up = false;
    const answeredOk = new Set<string>();
    receiver.answer = (request) => {
      if (!up) return { status: 500 };
      answeredOk.add(String(request.headers['webhook-id']));
      return { status: 200 };
    };
    const created = await post(`${base}/api/webhooks`, { url: receiver.url });
    assert.equal(created.status, 201, created.body);
    const { secret } = JSON.parse(created.body) as { secret: string };
    for (let i = 0; i < 10; i++) assert.equal((await post(`${base}/api/products`, { name: `p${i}`, priceInCents: i })).status, 201);
    await receiver.waitFor(10);
    await cluster.stopServer('immediate');
    up = true;
    const server = nodes.servers[0];
    await server?.waitForLine((line) => String(line['msg']).startsWith('webhook deliveries paused'), 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await cluster.startServer();
    await eventually(async () => (answeredOk.size === 10 ? true : undefined), 60_000, 'every event delivered after the outage');
    for (const request of receiver.received) verifyDelivery(secret, request);
    await eventually(async () => {
      const log = JSON.parse((await (await fetch(`${base}/api/webhooks/1/deliveries`)).text()) as string) as { status: number }[];
      return log.length === 10 && log.every((entry) => entry.status === 2) ? true : undefined;
    }, 30_000, 'every delivery recorded as delivered');
  });
});
