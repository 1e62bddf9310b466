import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DatabaseSync } from 'node:sqlite';
import { after, before, beforeEach, test } from 'node:test';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { closeDatabase, createStorage, type Database } from '../../src/db/engine.ts';
import { onWrites } from '../../src/webhooks/wake.ts';
import { postJson } from '../support/server.ts';
import type { Storage } from '../../src/db/storage.ts';
import type { NewRow } from '../../src/resources/repository.ts';
import { NEWEST_VERSION, repository, RESOURCES, validBody } from '../support/resources.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';

// StorageHooks.onDeliveriesMade, on the run's engine: what wakes this process's webhook deliverers
// (src/app.ts; without it they would wait for their poll). A write whose events a webhook takes calls it, once its transaction has committed; on
// SQLite a write that made no delivery does not (the deliverers then have nothing new to read), on
// PostgreSQL, whose fan-out is a trigger, every commit does.

const AT = '2026-11-28T09:30:00.000Z';
let database: TestDatabase;
let db: Database;
let storage: Storage;
// Each call: whether a transaction was still open on the connection when it came (SQLite).
let calls: boolean[] = [];
let made = 0;

before(async () => {
  database = await createTestDatabase();
  db = database.open();
  const inTransaction = (): boolean => database.engine === 'sqlite' && (db as DatabaseSync).isTransaction;
  storage = createStorage(db, { resources: RESOURCES, onDeliveriesMade: () => calls.push(inTransaction()) });
});

beforeEach(async () => {
  await database.sql('UPDATE webhooks SET status = 2');
  calls = [];
});

after(async () => {
  await closeDatabase(db);
  await database.drop();
});

async function enabledWebhook(): Promise<void> {
  await storage.webhooks.insert({
    url: 'https://hooks.example.com/', eventTypes: null, status: 1, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', previousSecret: null,
    previousSecretUntil: null, createdAt: AT, updatedAt: AT, apiVersion: '2026-11-21',
  });
}

async function deliveriesCount(): Promise<number> {
  const [row] = await database.sql('SELECT count(*) FROM webhook_deliveries');
  return Number(row?.[0]);
}

for (const resource of RESOURCES) {
  const create = (): Promise<unknown> =>
    storage.transaction((tx) => repository(tx, resource).insert({ ...validBody(resource, made++, NEWEST_VERSION), createdAt: AT, updatedAt: AT } as NewRow));

  test(`${resource.plural}: a create fanned out to an enabled webhook calls onDeliveriesMade after its commit`, async () => {
    await enabledWebhook();
    const before = await deliveriesCount();
    // Several in one group commit on SQLite: one transaction, one call.
    await Promise.all([create(), create(), create()]);
    assert.equal(await deliveriesCount(), before + 3);
    assert.ok(calls.length >= 1, 'called');
    assert.deepEqual(calls.filter((open) => open), [], 'never while the transaction is open');
    if (database.engine === 'sqlite') assert.equal(calls.length, 1, 'once for the one transaction');
  });

  test(`${resource.plural}: with no webhook enabled, SQLite does not call it, PostgreSQL calls it once a commit`, async () => {
    const before = await deliveriesCount();
    await create();
    assert.equal(await deliveriesCount(), before);
    // SQLite knows no delivery was made; PostgreSQL's trigger may have made some, on any commit.
    assert.equal(calls.length, database.engine === 'sqlite' ? 0 : 1);
  });
}

test('the app wakes its deliverers after a create a webhook takes, and on SQLite only then', async () => {
  const appDatabase = await createTestDatabase();
  const appDb = appDatabase.open();
  const server = createServer(createApp({ db: appDb, config: loadConfig({ ...appDatabase.env, SVC_LOG_LEVEL: 'silent', SVC_WEBHOOK_ALLOW_PRIVATE: 'true' }) }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let wakes = 0;
  const stop = onWrites(appDb, () => wakes++);
  try {
    for (const resource of RESOURCES) {
      wakes = 0;
      assert.equal((await postJson(`${base}/api/${resource.plural}`, validBody(resource, made++))).status, 201);
      assert.equal(wakes, appDatabase.engine === 'sqlite' ? 0 : 1, `${resource.plural}: no webhook, ${wakes} wake-ups`);
    }
    assert.equal((await postJson(`${base}/api/webhooks`, { url: 'http://127.0.0.1:9/' })).status, 201);
    for (const resource of RESOURCES) {
      wakes = 0;
      assert.equal((await postJson(`${base}/api/${resource.plural}`, validBody(resource, made++))).status, 201);
      assert.equal(wakes, 1, `${resource.plural}: a webhook takes its event`);
    }
  } finally {
    stop();
    await new Promise((resolve) => server.close(resolve));
    await closeDatabase(appDb);
    await appDatabase.drop();
  }
});
