import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { closeDatabase, createStorage, type Database } from '../../src/db/engine.ts';
import type { Storage } from '../../src/db/storage.ts';
import { fingerprintOf, type IdempotentOutcome, IdempotentWrites } from '../../src/idempotency/idempotent-write.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';

// The lifetime of a key (docs/api.md, Idempotent creates, Expiry: "replayed for 24 hours from its first request"), both bounds, on
// the real storage of the run's engine with the clock IdempotentWrites takes: no waiting a day.
const DAY_MS = 24 * 60 * 60 * 1000;
const SCOPE = 'POST /api/products';

let database: TestDatabase;
let db: Database;
let storage: Storage;
before(async () => {
  database = await createTestDatabase();
  db = database.open();
  storage = createStorage(db);
});
after(async () => {
  await closeDatabase(db);
  await database.drop();
});

/** IdempotentWrites on a clock the test sets, and a keyed write that counts how often it really ran. */
function keyedWrites(startMs: number): { clock: { now: number }; send(key: string, body: unknown): Promise<IdempotentOutcome>; runs(): number } {
  const clock = { now: startMs };
  const writes = new IdempotentWrites(() => clock.now);
  let runs = 0;
  const send = (key: string, body: unknown): Promise<IdempotentOutcome> =>
    storage.transaction((tx) =>
      writes.runOnce(tx, { scope: SCOPE, key, fingerprint: fingerprintOf(SCOPE, body) }, async () => {
        runs++;
        return { status: 201, location: `/api/products/${runs}`, etag: '"1"', body: JSON.stringify({ run: runs }) };
      }),
    );
  return { clock, send, runs: () => runs };
}

test('a stored key is replayed until the last millisecond of its 24 hours, and not at 24 hours', async () => {
  const { clock, send, runs } = keyedWrites(1_700_000_000_000);
  const start = clock.now;
  const first = await send('lifetime-1', { name: 'Lamp' });
  assert.equal(first.replayed, false);
  for (const elapsed of [1, 60_000, 60 * 60 * 1000, DAY_MS - 1]) {
    clock.now = start + elapsed;
    assert.deepEqual(await send('lifetime-1', { name: 'Lamp' }), { replayed: true, response: first.response }, `${elapsed} ms after`);
  }
  assert.equal(runs(), 1);
  clock.now = start + DAY_MS;
  const afresh = await send('lifetime-1', { name: 'Lamp' });
  assert.equal(afresh.replayed, false, 'a key 24 hours old is expired and runs afresh');
  assert.equal(afresh.response.location, '/api/products/2');
  assert.equal(runs(), 2);
});

test('the 24 hours count from the first request: replays do not extend them', async () => {
  const { clock, send } = keyedWrites(1_800_000_000_000);
  const start = clock.now;
  await send('lifetime-2', { name: 'Desk' });
  clock.now = start + DAY_MS - 1;
  assert.equal((await send('lifetime-2', { name: 'Desk' })).replayed, true);
  clock.now = start + DAY_MS;
  assert.equal((await send('lifetime-2', { name: 'Desk' })).replayed, false);
});

test('an expired key may be used with another body; within its 24 hours that is 422', async () => {
  const { clock, send } = keyedWrites(1_900_000_000_000);
  const start = clock.now;
  await send('lifetime-3', { name: 'Chair' });
  clock.now = start + DAY_MS - 1;
  await assert.rejects(send('lifetime-3', { name: 'Stool' }), { name: 'IdempotencyKeyReusedError' });
  clock.now = start + DAY_MS;
  const other = await send('lifetime-3', { name: 'Stool' });
  assert.equal(other.replayed, false);
  // And the new record has a lifetime of its own, from now.
  clock.now = start + 2 * DAY_MS - 1;
  assert.deepEqual(await send('lifetime-3', { name: 'Stool' }), { replayed: true, response: other.response });
});
