import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApiKey, revokeApiKey } from '../../src/api-keys.ts';
import { type Identified, NOT_VALID } from '../../src/callers/caller.ts';
import { Scope } from '../../src/callers/scopes.ts';
import { StorageUnavailableError } from '../../src/db/errors.ts';
import { migrate } from '../../src/db/migrate.ts';
import { generateKey } from '../../src/keys/format.ts';
import { createKeyCheck, type KeyCheck, type KeyCheckOptions, type KeyLookupResult } from '../../src/keys/key-check.ts';
import { openDatabase } from '../../src/sqlite/database.ts';
import { createSqliteStorage } from '../../src/sqlite/storage.ts';
import { keyWithOtherSecret } from '../support/keys.ts';

// The check on a real (in-memory) SQLite storage, with clocks the test moves by hand.
function setup(options: Partial<KeyCheckOptions> = {}) {
  const db = openDatabase(':memory:');
  migrate(db);
  const storage = createSqliteStorage(db);
  const clock = { now: 0, wall: Date.parse('2030-01-01T00:00:00.000Z') };
  const lookups: KeyLookupResult[] = [];
  const fault = { down: false };
  const check: KeyCheck = createKeyCheck({
    find: (id) => (fault.down ? Promise.reject(new StorageUnavailableError('the database cannot be reached')) : storage.keys.findById(id)),
    onLookup: (result) => lookups.push(result),
    now: () => clock.now,
    wallNow: () => clock.wall,
    ...options,
  });
  const make = async (scopes: ('read' | 'write' | 'admin')[], expiresAt: string | null = null) => {
    // createApiKey judges "in the future" by the real clock; these keys expire in 2030 by the test's wall clock.
    return createApiKey(db, { name: 'k', scopes, expiresAt });
  };
  return { db, check, clock, lookups, fault, make, close: () => db.close() };
}

const reasonOf = (identified: Identified | undefined): string => (identified === undefined ? 'none' : identified.ok ? 'ok' : identified.refusal.reason);
const randomKey = (): string => generateKey().key;

test('a malformed key and a bad checksum are refused without a lookup; one detail for malformed, unknown and a wrong secret', async () => {
  const { check, lookups, make, close } = setup();
  const { key } = await make(['read']);
  for (const credential of ['not-a-key', `${key.slice(0, -1)}${key.endsWith('a') ? 'b' : 'a'}`, key.slice(0, 40)]) {
    const identified = check.identify(credential);
    assert.ok(!(identified instanceof Promise), 'decided without I/O');
    assert.equal(reasonOf(identified), 'malformed');
  }
  assert.deepEqual(lookups, []);
  const wrongSecret = keyWithOtherSecret(key.slice(4, 16));
  const [malformed, unknown, invalid] = await Promise.all(['svc_x', randomKey(), wrongSecret].map((credential) => check.identify(credential)));
  assert.deepEqual([malformed, unknown, invalid].map(reasonOf), ['malformed', 'unknown', 'invalid']);
  for (const refusal of [malformed, unknown, invalid]) assert.equal(refusal?.ok === false && refusal.refusal.detail, NOT_VALID);
  assert.deepEqual(lookups, ['absent', 'found']);
  close();
});

test('a good key is read once, then answered from memory without a promise until its read is 2 s old', async () => {
  const { check, clock, lookups, make, close } = setup();
  const { id, key } = await make(['read', 'write']);
  const first = await check.identify(key);
  assert.deepEqual(first, { ok: true, caller: { kind: 'key', id, scopes: [Scope.read, Scope.write] } });
  clock.now += 1_999;
  const cached = check.identify(key);
  assert.ok(!(cached instanceof Promise));
  assert.equal(reasonOf(cached), 'ok');
  assert.deepEqual(lookups, ['found']);
  clock.now += 1;
  assert.ok(check.identify(key) instanceof Promise, 'read again at 2 s');
  close();
});

test('a revocation made elsewhere is seen once the cached read is 2 s old, and expiry at its exact instant', async () => {
  const { db, check, clock, make, close } = setup();
  const revoked = await make(['read']);
  const expiring = await make(['read'], '2030-01-01T00:00:01.500Z');
  assert.equal(reasonOf(await check.identify(revoked.key)), 'ok');
  assert.equal(reasonOf(await check.identify(expiring.key)), 'ok');
  await revokeApiKey(db, revoked.id);
  clock.now += 1_500;
  assert.equal(reasonOf(await check.identify(revoked.key)), 'ok', 'still trusted: read 1.5 s ago');
  clock.now += 500;
  const seen = await check.identify(revoked.key);
  assert.deepEqual(seen, { ok: false, refusal: { reason: 'revoked', detail: 'The API key has been revoked.' } });
  clock.wall += 1_499;
  assert.equal(reasonOf(await check.identify(expiring.key)), 'ok');
  clock.wall += 1;
  assert.deepEqual(check.identify(expiring.key), { ok: false, refusal: { reason: 'expired', detail: 'The API key has expired.' } });
  close();
});

test('an absent id is remembered for 2 s; reads of unknown ids stop at the budget, which refills at its rate', async () => {
  const { check, clock, lookups, close } = setup({ lookupsPerSecond: 20, lookupBurst: 20 });
  const absent = randomKey();
  assert.equal(reasonOf(await check.identify(absent)), 'unknown');
  assert.equal(reasonOf(check.identify(absent) as Identified), 'unknown', 'no read: remembered as absent');
  assert.equal(lookups.length, 1);
  const flood = await Promise.all(Array.from({ length: 100 }, () => check.identify(randomKey())));
  assert.equal(lookups.length, 20, 'the first read and 19 more: a burst of 20');
  assert.equal(flood.filter((result) => reasonOf(result) === 'unverifiable').length, 81);
  assert.equal(flood.filter((result) => reasonOf(result) === 'unknown').length, 19);
  clock.now += 1_000;
  await Promise.all(Array.from({ length: 100 }, () => check.identify(randomKey())));
  assert.equal(lookups.length, 40, 'one second later, 20 more reads');
  assert.ok(lookups.every((result) => result === 'absent'));
  close();
});

test('a key known to exist is read again outside the budget: a flood of unknown ids never stops it', async () => {
  const { check, clock, lookups, make, close } = setup({ lookupsPerSecond: 1, lookupBurst: 1 });
  const { key } = await make(['read']);
  assert.equal(reasonOf(await check.identify(key)), 'ok');
  for (let second = 0; second < 10; second++) {
    clock.now += 1_000;
    // The budget is spent just before the good key's turn: its re-read must not need any of it.
    await Promise.all(Array.from({ length: 50 }, () => check.identify(randomKey())));
    assert.equal(reasonOf(await check.identify(key)), 'ok', `second ${second}`);
  }
  assert.equal(lookups.filter((result) => result === 'found').length, 6, 'the first read, then one every 2 s');
  assert.ok(lookups.filter((result) => result === 'absent').length <= 11);
  close();
});

test('one read per id at a time: fifty requests for a stale key share one lookup', async () => {
  const { check, clock, lookups, make, close } = setup();
  const { key } = await make(['read']);
  await check.identify(key);
  clock.now += 5_000;
  const answers = await Promise.all(Array.from({ length: 50 }, () => check.identify(key)));
  assert.ok(answers.every((answer) => reasonOf(answer) === 'ok'));
  assert.deepEqual(lookups, ['found', 'found']);
  close();
});

test('a re-read that fails rejects: no request is let through on what was read before, and the next one reads again', async () => {
  const { check, clock, fault, lookups, make, close } = setup();
  const { key } = await make(['read']);
  await check.identify(key);
  clock.now += 2_000;
  fault.down = true;
  await assert.rejects(async () => check.identify(key), StorageUnavailableError);
  await assert.rejects(async () => check.identify(key), StorageUnavailableError);
  fault.down = false;
  assert.equal(reasonOf(await check.identify(key)), 'ok');
  assert.deepEqual(lookups, ['found', 'failed', 'failed', 'found']);
  close();
});

test('remember: a key revoked by this process counts at once, and a read under way when it happened does not undo it', async () => {
  const { db, check, clock, make, close, lookups } = setup();
  const made = await make(['admin']);
  await check.identify(made.key);
  clock.now += 2_000;
  const underWay = check.identify(made.key);
  const stored = await createSqliteStorage(db).keys.findById(made.id);
  assert.ok(stored !== undefined);
  check.remember({ ...stored, revokedAt: '2030-01-01T00:00:00.000Z' });
  assert.equal(reasonOf(check.identify(made.key) as Identified), 'revoked', 'at once, without a read');
  assert.equal(reasonOf(await underWay), 'ok', 'the request that arrived before the revocation');
  assert.equal(reasonOf(check.identify(made.key) as Identified), 'revoked', 'the older read did not replace it');
  assert.deepEqual(lookups, ['found', 'found']);
  close();
});

test('the caches are bounded: past maxKnown the least recently used key needs a read again, within the budget', async () => {
  const { check, lookups, make, close } = setup({ maxKnown: 2, lookupBurst: 3, lookupsPerSecond: 0.001 });
  const keys = await Promise.all([make(['read']), make(['read']), make(['read'])]);
  for (const { key } of keys) assert.equal(reasonOf(await check.identify(key)), 'ok');
  assert.equal(lookups.length, 3);
  assert.equal(reasonOf(check.identify(keys[2]?.key ?? '') as Identified), 'ok', 'the newest is still held');
  assert.equal(reasonOf(await check.identify(keys[0]?.key ?? '')), 'unverifiable', 'the oldest was forgotten, and the budget is spent');
  close();
});
