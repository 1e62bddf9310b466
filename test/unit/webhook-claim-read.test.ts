import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { closeDatabase, createStorage, type Database } from '../../src/db/engine.ts';
import type { Storage } from '../../src/db/storage.ts';
import type { ClaimedDelivery, DueDelivery } from '../../src/webhooks/model.ts';
import type { ClaimPick, DueQuery } from '../../src/webhooks/repository.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';
import { webhookRow } from '../support/webhook-rows.ts';

// What a claim reads and takes (DeliveryRepository.claim), on the run's engine: which webhooks, in
// which order, which of their deliveries; then what it takes of those picked, and what it returns.
// The deliverer picks within its slots (src/webhooks/slots.ts).

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
  const { id } = await storage.webhooks.insert(webhookRow({ status, createdAt: at, updatedAt: at }));
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

/** A claim in a transaction of its own: what `pick` takes of what it read; resolves to what it read and what it took. */
async function claim(changes: Partial<DueQuery>, pick: ClaimPick = () => []): Promise<{ due: readonly DueDelivery[]; claimed: ClaimedDelivery[] }> {
  let due: readonly DueDelivery[] = [];
  const request = { ...query(changes), leaseUntil: NOW + 60 * SECOND, claimToken: 42 };
  const claimed = await storage.transaction((tx) => tx.webhookDeliveries.claim(request, (read) => pick((due = read))));
  return { due, claimed };
}

/** What a claim reads: each delivery as [webhook, seq]. */
async function read(changes: Partial<DueQuery>): Promise<[number, number][]> {
  return (await claim(changes)).due.map((due) => [due.webhookId, due.seq]);
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
  const { due } = await claim({ webhooks: 4 });
  assert.deepEqual(due.map((one) => one.lastAttemptFailed), [false, null, false, true], 'each with whether its webhook\'s last attempt failed');
});

test('a claim takes what was picked, still due and free, under its lease, with what the attempt sends; nothing else, and nothing twice', async () => {
  const hook = await webhook(true);
  const [first, second, third] = [await delivery(hook, NOW - 3 * SECOND), await delivery(hook, NOW - 2 * SECOND), await delivery(hook, NOW - SECOND)];
  await database.sql(`UPDATE webhook_deliveries SET event_data = '[7,"lamp"]', round_attempts = 2, api_version = '2026-12-05' WHERE seq = ${second}`);
  // The second and third picked, and one that is not due (the first, once leased by another claim).
  const { claimed } = await claim({}, (due) => due.filter((one) => one.seq !== first));
  assert.deepEqual(claimed.map((one) => one.seq), [second, third]);
  const taken = claimed[0] as ClaimedDelivery;
  assert.deepEqual(
    { ...taken, event: { ...taken.event } },
    {
      seq: second, webhookId: hook, event: { id: String(event - 1), type: 1, createdAt: new Date(NOW).toISOString(), row: [7, 'lamp'] },
      url: 'https://hooks.example.com/', secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'], roundAttempts: 2, claimToken: 42, apiVersion: '2026-12-05', lastAttemptFailed: true,
    },
  );
  const leases = await database.sql(`SELECT seq, claimed_until, claim_token FROM webhook_deliveries WHERE claim_token IS NOT NULL ORDER BY seq`);
  assert.deepEqual(leases.map((row) => row.map(Number)), [[second, NOW + 60 * SECOND, 42], [third, NOW + 60 * SECOND, 42]]);
  assert.deepEqual(await read({}), [[hook, first]], 'what is leased is read no more');
  const stale: DueDelivery = { seq: second, webhookId: hook, dueAt: NOW, lastAttemptFailed: true };
  assert.deepEqual((await claim({}, () => [stale])).claimed, [], 'a delivery leased since it was read is not taken');
});
