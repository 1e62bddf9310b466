import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DatabaseSync } from 'node:sqlite';
import { after, before, beforeEach, test } from 'node:test';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { closeDatabase, createStorage, type Database } from '../../src/db/engine.ts';
import { WebhookStatus } from '../../src/webhooks/model.ts';
import { onCommits, onWrites } from '../../src/webhooks/wake.ts';
import { postJson } from '../support/server.ts';
import type { Storage } from '../../src/db/storage.ts';
import type { NewRow } from '../../src/resources/repository.ts';
import { NEWEST_VERSION, repository, RESOURCES, validBody } from '../support/resources.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';
import { webhookRow } from '../support/webhook-rows.ts';

// StorageHooks.onDeliveriesMade and onDeliveriesMaybeMade, on the run's engine: what wakes this
// process's webhook deliverers (src/app.ts; without them they would wait for their poll). On SQLite a
// write whose events a webhook takes calls onDeliveriesMade once its transaction has committed, and a
// write that made no delivery calls nothing (the deliverers have nothing new to read); on PostgreSQL,
// whose fan-out is a trigger, every commit calls onDeliveriesMaybeMade (src/webhooks/deliverer.ts
// then reads unless it knows no webhook is enabled).

const AT = '2026-11-28T09:30:00.000Z';
let database: TestDatabase;
let db: Database;
let storage: Storage;
// Each call of onDeliveriesMade: whether a transaction was still open on the connection when it came (SQLite).
let calls: boolean[] = [];
let maybeCalls = 0;
let made = 0;

before(async () => {
  database = await createTestDatabase();
  db = database.open();
  const inTransaction = (): boolean => database.engine === 'sqlite' && (db as DatabaseSync).isTransaction;
  storage = createStorage(db, { resources: RESOURCES, onDeliveriesMade: () => calls.push(inTransaction()), onDeliveriesMaybeMade: () => maybeCalls++ });
});

beforeEach(async () => {
  await database.sql(`UPDATE webhooks SET status = ${WebhookStatus.disabled}`);
  calls = [];
  maybeCalls = 0;
});

after(async () => {
  await closeDatabase(db);
  await database.drop();
});

async function enabledWebhook(): Promise<void> {
  await storage.webhooks.insert(webhookRow());
}

async function deliveriesCount(): Promise<number> {
  const [row] = await database.sql('SELECT count(*) FROM webhook_deliveries');
  return Number(row?.[0]);
}

for (const resource of RESOURCES) {
  const create = (): Promise<unknown> =>
    storage.transaction((tx) => repository(tx, resource).insert({ ...validBody(resource, made++, NEWEST_VERSION), createdAt: AT, updatedAt: AT } as NewRow));

  test(`${resource.plural}: a create fanned out to an enabled webhook says so after its commit`, async () => {
    await enabledWebhook();
    const before = await deliveriesCount();
    // Several in one group commit on SQLite: one transaction, one call.
    await Promise.all([create(), create(), create()]);
    assert.equal(await deliveriesCount(), before + 3);
    if (database.engine === 'sqlite') {
      assert.deepEqual(calls, [false], 'once for the one transaction, after its COMMIT');
      assert.equal(maybeCalls, 0);
    } else {
      assert.deepEqual(calls, []);
      assert.equal(maybeCalls, 3, 'one for each commit');
    }
  });

  test(`${resource.plural}: with no webhook enabled, SQLite says nothing, PostgreSQL that deliveries may have been made`, async () => {
    const before = await deliveriesCount();
    await create();
    assert.equal(await deliveriesCount(), before);
    assert.deepEqual(calls, []);
    assert.equal(maybeCalls, database.engine === 'sqlite' ? 0 : 1);
  });
}

test('the app nudges its deliverers after a create a webhook takes, and after a webhook is created', async () => {
  const appDatabase = await createTestDatabase();
  const appDb = appDatabase.open();
  const server = createServer(createApp({ db: appDb, config: loadConfig({ ...appDatabase.env, SVC_LOG_LEVEL: 'silent', SVC_WEBHOOK_ALLOW_PRIVATE: 'true' }) }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const sqlite = appDatabase.engine === 'sqlite';
  let wakes = 0;
  let commits = 0;
  const stops = [onWrites(appDb, () => wakes++), onCommits(appDb, () => commits++)];
  const createEach = async (expected: { wakes: number; commits: number }, what: string): Promise<void> => {
    for (const resource of RESOURCES) {
      [wakes, commits] = [0, 0];
      assert.equal((await postJson(`${base}/api/${resource.plural}`, validBody(resource, made++))).status, 201);
      assert.deepEqual({ wakes, commits }, expected, `${resource.plural}, ${what}`);
    }
  };
  try {
    await createEach({ wakes: 0, commits: sqlite ? 0 : 1 }, 'no webhook');
    [wakes, commits] = [0, 0];
    assert.equal((await postJson(`${base}/api/webhooks`, { url: 'http://127.0.0.1:9/' })).status, 201);
    assert.equal(wakes, 1, 'a webhook created wakes them');
    await createEach({ wakes: sqlite ? 1 : 0, commits: sqlite ? 0 : 1 }, 'a webhook takes its event');
  } finally {
    for (const stop of stops) stop();
    await new Promise((resolve) => server.close(resolve));
    await closeDatabase(appDb);
    await appDatabase.drop();
  }
});
