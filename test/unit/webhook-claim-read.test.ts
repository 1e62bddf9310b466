import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { closeDatabase, createStorage, type Database } from '../../src/db/engine.ts';
import type { Storage } from '../../src/db/storage.ts';
import type { DueQuery } from '../../src/webhooks/repository.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';

// What a claim reads (DeliveryRepository.dueByWebhook), on the run's engine: which webhooks, in which
// order, and which of their deliveries. The deliverer picks from it within its slots.

const NOW = Date.now();
const SECOND = 1_000;
let database: TestDatabase;
let db: Database;
let storage: Storage;
let event = 0;

before(async () => {
  database = await createTestDatabase();
  db = database.open();
  storage = createStorage(db);
});

// Each test on its own webhooks: the others' disabled, every delivery gone.
beforeEach(async () => {
  await database.sql('DELETE FROM webhook_deliveries');
  await database.sql('UPDATE webhooks SET status = 2');
});

after(async () => {
  await closeDatabase(db);
  await database.drop();
});

/** A new enabled webhook; `lastFailed` as its last recorded attempt (null: none yet). */
async function webhook(lastFailed: boolean | null = false, status: 1 | 2 = 1): Promise<number> {
  const at = new Date(NOW).toISOString();
  const { id } = await storage.webhooks.insert({
    url: 'https://hooks.example.com/', eventTypes: null, status, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', previousSecret: null,
    previousSecretUntil: null, createdAt: at, updatedAt: at, apiVersion: '2026-11-21',
  });
  const value = lastFailed === null ? 'NULL' : database.engine === 'postgres' ? String(lastFailed) : String(Number(lastFailed));
  await database.sql(`UPDATE webhooks SET last_attempt_failed = ${value} WHERE id = ${id}`);
  return id;
}

/** A delivery of `webhookId` due at `dueAt` (pending; leased until `leasedUntil`; or of another status, with nothing planned); returns its seq. */
async function delivery(webhookId: number, dueAt: number, options: { leasedUntil?: number; status?: 2 | 3 } = {}): Promise<number> {
  const status = options.status ?? 1;
  const next = status === 1 ? String(dueAt) : 'NULL';
  await database.sql(
    `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, event_created_at, event_data, status, next_attempt_at, claimed_until, claim_token)
     VALUES (${webhookId}, '${++event}', 1, '${new Date(NOW).toISOString()}', '[]', ${status}, ${next}, ${options.leasedUntil ?? 'NULL'}, ${options.leasedUntil === undefined ? 'NULL' : 7})`,
  );
  const [row] = await database.sql(`SELECT seq FROM webhook_deliveries WHERE event_id = '${event}'`);
  return Number(row?.[0]);
}

const query = (changes: Partial<DueQuery> = {}): DueQuery => ({ now: NOW, excludeWebhooks: [], slowWebhooks: [], withFailing: true, webhooks: 256, perWebhook: 4, ...changes });

async function read(changes: Partial<DueQuery>): Promise<[number, number][]> {
  return (await storage.webhookDeliveries.dueByWebhook(query(changes))).map((due) => [due.webhookId, due.seq]);
}

test('a claim reads the oldest due deliveries of each webhook, at most perWebhook, never leased, future or ended ones, nor a disabled webhook\'s', async () => {
  const hook = await webhook();
  const leased = await delivery(hook, NOW - 9 * SECOND, { leasedUntil: NOW + 60 * SECOND });
  const expired = await delivery(hook, NOW - 8 * SECOND, { leasedUntil: NOW - SECOND });
  await delivery(hook, NOW - 7 * SECOND, { status: 2 });
  await delivery(hook, NOW - 7 * SECOND, { status: 3 });
  const due = [await delivery(hook, NOW - 6 * SECOND), await delivery(hook, NOW - 5 * SECOND), await delivery(hook, NOW)];
  await delivery(hook, NOW + SECOND);
  const disabled = await webhook(false, 2);
  await delivery(disabled, NOW - 60 * SECOND);
  assert.ok(leased > 0);
  assert.deepEqual(await read({}), [expired, ...due].map((seq) => [hook, seq]), 'an expired lease is due again; the rest in the order they fell due');
  assert.deepEqual(await read({ perWebhook: 2 }), [expired, due[0]].map((seq) => [hook, seq]));
});

test('webhooks left out are never read, and never take the place of others: the `webhooks` read are the first of the rest', async () => {
  const hooks = [await webhook(), await webhook(), await webhook(), await webhook()];
  const seqs: number[] = [];
  for (const [index, hook] of hooks.entries()) seqs.push(await delivery(hook, NOW - (10 - index) * SECOND));
  const pairs = (indexes: number[]): [number, number][] => indexes.map((index) => [hooks[index] as number, seqs[index] as number]);
  assert.deepEqual(await read({ webhooks: 2 }), pairs([0, 1]), 'the oldest due first');
  assert.deepEqual(await read({ webhooks: 2, excludeWebhooks: [hooks[0] as number, hooks[1] as number] }), pairs([2, 3]));
  assert.deepEqual(await read({ webhooks: 2, excludeWebhooks: [hooks[1] as number] }), pairs([0, 2]));
});

test('webhooks that answer come first: one whose last attempt failed, or known slow, after the others whatever their age; withFailing false leaves the failed out', async () => {
  const failed = await webhook(true);
  const slow = await webhook(false);
  const fresh = await webhook(null);
  const healthy = await webhook(false);
  const seqs = new Map<number, number>();
  for (const [hook, age] of [[failed, 40], [slow, 30], [fresh, 20], [healthy, 10]] as const) seqs.set(hook, await delivery(hook, NOW - age * SECOND));
  const order = async (changes: Partial<DueQuery>): Promise<number[]> => (await read(changes)).map(([hook]) => hook);
  assert.deepEqual(await order({}), [slow, fresh, healthy, failed]);
  assert.deepEqual(await order({ slowWebhooks: [slow] }), [fresh, healthy, failed, slow], 'the failed and the slow by their age, after the others');
  assert.deepEqual(await order({ slowWebhooks: [slow], webhooks: 2 }), [fresh, healthy]);
  assert.deepEqual(await order({ withFailing: false }), [slow, fresh, healthy]);
  const due = await storage.webhookDeliveries.dueByWebhook(query({ webhooks: 4 }));
  assert.deepEqual(due.map((one) => one.lastAttemptFailed), [false, null, false, true], 'each with whether its webhook\'s last attempt failed');
});
