import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApiKey, revokeApiKey } from '../../src/api-keys.ts';
import { type Identified, NOT_VALID } from '../../src/callers/caller.ts';
import { Scope } from '../../src/callers/scopes.ts';
import { StorageUnavailableError } from '../../src/db/errors.ts';
import { migrate } from '../../src/db/migrate.ts';
import { generateKey, keyDigest } from '../../src/keys/format.ts';
import { createKeyCheck, type KeyCheck, type KeyCheckOptions, type KeyLookupResult } from '../../src/keys/key-check.ts';
import { type KeyIdRefreshResult, KeyIds } from '../../src/keys/key-ids.ts';
import { openDatabase } from '../../src/sqlite/database.ts';
import { createSqliteStorage } from '../../src/sqlite/storage.ts';
import { keyWithOtherSecret } from '../support/keys.ts';

// The check on a real (in-memory) SQLite storage, with clocks the test moves by hand. `delay` lets a
// test hold a read of a key or of the ids under way, and move the clock while it is.
function setup(options: Partial<KeyCheckOptions> = {}) {
  const db = openDatabase(':memory:');
  migrate(db);
  const storage = createSqliteStorage(db);
  const clock = { now: 0, wall: Date.parse('2030-01-01T00:00:00.000Z') };
  const lookups: KeyLookupResult[] = [];
  const refreshes: KeyIdRefreshResult[] = [];
  const fault = { down: false };
  const delay = { find: async (): Promise<void> => {}, ids: async (): Promise<void> => {} };
  const unavailable = () => Promise.reject(new StorageUnavailableError('the database cannot be reached'));
  const ids = new KeyIds({
    idsAfter: async (seq) => {
      // The query answers, then its answer is held on the way back: what it saw is what was committed when it ran.
      const answer = fault.down ? unavailable() : storage.keys.idsAfter(seq);
      await delay.ids();
      return answer;
    },
    onRefresh: (result) => refreshes.push(result),
    now: () => clock.now,
    refreshGapMs: 0,
  });
  const check: KeyCheck = createKeyCheck({
    find: async (id) => {
      const answer = fault.down ? unavailable() : storage.keys.findById(id);
      await delay.find();
      return answer;
    },
    onLookup: (result) => lookups.push(result),
    ids,
    now: () => clock.now,
    wallNow: () => clock.wall,
    ...options,
  });
  const make = async (scopes: ('read' | 'write' | 'admin')[], expiresAt: string | null = null) => {
    // createApiKey judges "in the future" by the real clock; these keys expire in 2030 by the test's wall clock.
    return createApiKey(db, { name: 'k', scopes, expiresAt });
  };
  return { db, storage, check, ids, clock, lookups, refreshes, fault, delay, make, close: () => db.close() };
}

// A check that never answers fails its test instead of holding up the run.
// A Node timer is scheduled on a clock of whole milliseconds: it may fire up to 1 ms early as
// performance.now() measures it, so a gap of 250 ms can read 249.x (a refresh without any gap reads 0).
const TIMER_SLACK_MS = 1;
const LIMIT = { timeout: 10_000 };

const reasonOf = (identified: Identified | undefined): string => (identified === undefined ? 'none' : identified.ok ? 'ok' : identified.refusal.reason);
const randomKey = (): string => generateKey().key;

test('a malformed key and a bad checksum are refused without a lookup; one detail for malformed, unknown and a wrong secret', LIMIT, async () => {
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
  assert.deepEqual(lookups, ['found'], 'the unknown id was refused without a read of a key');
  close();
});

test('a good key is read once, then answered from memory without a promise until its read is 2 s old', LIMIT, async () => {
  const { check, clock, lookups, make, close } = setup();
  const { id, key } = await make(['read', 'write']);
  const first = await check.identify(key);
  assert.deepEqual(first, { ok: true, caller: { kind: 'key', id, scopes: [Scope.read, Scope.write], apiVersion: '2026-11-21' } });
  clock.now += 1_999;
  const cached = check.identify(key);
  assert.ok(!(cached instanceof Promise));
  assert.equal(reasonOf(cached), 'ok');
  assert.deepEqual(lookups, ['found']);
  clock.now += 1;
  const again = check.identify(key);
  assert.ok(again instanceof Promise, 'read again at 2 s');
  assert.equal(reasonOf(await again), 'ok');
  assert.deepEqual(lookups, ['found', 'found']);
  close();
});

test('a revocation made elsewhere is seen once the cached read is 2 s old, and expiry at its exact instant', LIMIT, async () => {
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

test('one read per id at a time: fifty requests for a stale key share one lookup', LIMIT, async () => {
  const { check, clock, lookups, make, close } = setup();
  const { key } = await make(['read']);
  await check.identify(key);
  clock.now += 5_000;
  const answers = await Promise.all(Array.from({ length: 50 }, () => check.identify(key)));
  assert.ok(answers.every((answer) => reasonOf(answer) === 'ok'));
  assert.deepEqual(lookups, ['found', 'found']);
  close();
});

test('a re-read that fails rejects: no request is let through on what was read before, and the next one reads again', LIMIT, async () => {
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

test('remember: a key revoked by this process counts at once, and a read under way when it happened does not undo it', LIMIT, async () => {
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

test("a key's API version moved elsewhere is its caller's once the cached read is 2 s old; one moved by this process (remember) at once", LIMIT, async () => {
  const { storage, check, clock, make, close, lookups } = setup();
  const made = await make(['read']);
  const pinOf = (identified: Identified | Promise<Identified>): string | undefined => {
    assert.ok(!(identified instanceof Promise), 'answered from memory');
    return identified.ok ? identified.caller.apiVersion : identified.refusal.reason;
  };
  const first = await check.identify(made.key);
  assert.equal(first.ok && first.caller.apiVersion, '2026-11-21', 'a key made without a version pins the first');
  const stored = await storage.keys.findById(made.id);
  assert.ok(stored !== undefined);
  // Moved by another process: this one learns it by reading the key again.
  await storage.transaction((tx) => tx.keys.update({ ...stored, apiVersion: '2026-12-05', version: 2 }));
  clock.now += 1_999;
  assert.equal(pinOf(check.identify(made.key)), '2026-11-21', 'still the read of 1.999 s ago');
  clock.now += 1;
  const reread = await check.identify(made.key);
  assert.equal(reread.ok && reread.caller.apiVersion, '2026-12-05', 'read again at 2 s, with the new version');
  check.remember({ ...stored, apiVersion: '2026-11-28', version: 3 });
  assert.equal(pinOf(check.identify(made.key)), '2026-11-28', 'moved by this process: at once, without a read');
  assert.deepEqual(lookups, ['found', 'found']);
  close();
});

// A gate that opens when the test says, for reads the test holds under way.
function gate(): { wait: () => Promise<void>; open: () => void } {
  let open = (): void => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { wait: () => opened, open };
}

test('the 2 s of trust count from the START of a read: a read that took 1.5 s is trusted 0.5 s more, not 2 s', LIMIT, async () => {
  const { check, clock, delay, lookups, make, close } = setup();
  const { key } = await make(['read']);
  // The read is under way for 1.5 s of the check's clock: a revocation committed then may be missing from it.
  delay.find = async () => {
    clock.now += 1_500;
  };
  assert.equal(reasonOf(await check.identify(key)), 'ok');
  delay.find = async () => {};
  clock.now += 499;
  assert.ok(!(check.identify(key) instanceof Promise), '1,999 ms after the read began: still trusted');
  clock.now += 1;
  const again = check.identify(key);
  assert.ok(again instanceof Promise, '2 s after the read BEGAN it is read again, though it ended only 0.5 s ago');
  await again;
  assert.deepEqual(lookups, ['found', 'found']);
  close();
});

test('an id found absent is not remembered: once a key with that id is stored, its next request is accepted', LIMIT, async () => {
  const { storage, check, lookups, refreshes, close } = setup();
  const { id, key } = generateKey();
  assert.equal(reasonOf(await check.identify(key)), 'unknown');
  assert.equal(reasonOf(await check.identify(key)), 'unknown', 'still absent');
  // The key is made behind this process's back (another node, bin/keys.js), with the id refused just now.
  await storage.transaction((tx) =>
    tx.keys.insert({ id, name: 'late', scopes: [Scope.read], digest: keyDigest(key).toString('base64url'), createdAt: new Date().toISOString(), expiresAt: null, revokedAt: null, apiVersion: '2026-11-21' }),
  );
  assert.equal(reasonOf(await check.identify(key)), 'ok', 'no clock moved: nothing about the id was kept');
  assert.deepEqual(lookups, ['found'], 'an absent id never cost a read of a key');
  assert.ok(refreshes.length >= 3 && refreshes.every((result) => result === 'done'));
  close();
});

test('a refresh of the ids under way when a request arrives does not decide it: the key made meanwhile is accepted', LIMIT, async () => {
  const { check, ids, delay, refreshes, make, close } = setup();
  await ids.refreshed();
  const held = gate();
  const queried = gate();
  delay.ids = async () => {
    queried.open();
    await held.wait();
  };
  const earlier = check.identify(generateKey().key);
  await queried.wait();
  // That refresh has run its query (its answer not yet back) when the key is made and used.
  const made = await make(['read']);
  const first = check.identify(made.key);
  delay.ids = async () => {};
  held.open();
  assert.equal(reasonOf(await earlier), 'unknown');
  assert.equal(reasonOf(await first), 'ok', 'its first request waited for a refresh that began after it arrived');
  assert.deepEqual(refreshes, ['done', 'done', 'done']);
  close();
});

test('a flood of invented ids costs no read of a key, and one refresh of the ids for all the requests that arrived together', LIMIT, async () => {
  const { check, ids, lookups, refreshes, make, close } = setup();
  await ids.refreshed();
  const good = await make(['read']);
  assert.equal(reasonOf(await check.identify(good.key)), 'ok');
  const before = refreshes.length;
  const flood = await Promise.all(Array.from({ length: 1_000 }, () => check.identify(generateKey().key)));
  assert.ok(flood.every((answer) => reasonOf(answer) === 'unknown'));
  assert.deepEqual(lookups, ['found'], 'the good key, once');
  assert.equal(refreshes.length - before, 1, 'one query of the ids for a thousand requests');
  close();
});

test('refreshes of the ids: at most one at a time, and one per 250 ms (the default gap), however many requests ask', LIMIT, async () => {
  let now = 0;
  const started: number[] = [];
  const ids = new KeyIds({
    idsAfter: async (seq) => {
      started.push(performance.now());
      return { ids: [], lastSeq: seq };
    },
    now: () => (now = performance.now()),
  });
  const until = performance.now() + 1_000;
  while (performance.now() < until) await Promise.all(Array.from({ length: 50 }, () => ids.refreshed()));
  assert.ok(now > 0);
  // 1 s at one per 250 ms: 4, and the first one at construction.
  assert.ok(started.length <= 6 && started.length >= 3, `${started.length} refreshes in 1 s`);
  for (let i = 1; i < started.length; i++) assert.ok((started[i] ?? 0) - (started[i - 1] ?? 0) >= 250 - TIMER_SLACK_MS, `refresh ${i} came ${((started[i] ?? 0) - (started[i - 1] ?? 0)).toFixed(1)} ms after the one before`);
});

test('refreshes of the ids that fail (the database away) keep the same pace: one per 250 ms, however many requests ask', LIMIT, async () => {
  const started: number[] = [];
  const results: KeyIdRefreshResult[] = [];
  const ids = new KeyIds({
    idsAfter: async () => {
      started.push(performance.now());
      throw new StorageUnavailableError('the database cannot be reached');
    },
    onRefresh: (result) => results.push(result),
  });
  const until = performance.now() + 1_000;
  while (performance.now() < until) await Promise.all(Array.from({ length: 50 }, () => ids.refreshed().catch(() => {})));
  // 1 s at one per 250 ms: 4, and the first one at construction; each failed, and each was told.
  assert.ok(started.length <= 6 && started.length >= 3, `${started.length} refreshes in 1 s while every one failed`);
  for (let i = 1; i < started.length; i++) assert.ok((started[i] ?? 0) - (started[i - 1] ?? 0) >= 250 - TIMER_SLACK_MS, `refresh ${i} came ${((started[i] ?? 0) - (started[i - 1] ?? 0)).toFixed(1)} ms after the one before`);
  assert.deepEqual(new Set(results), new Set(['failed']));
  assert.equal(results.length, started.length);
});

test('a refresh of the ids that fails rejects (503), never "unknown"; the next request tries again', LIMIT, async () => {
  const { check, fault, make, close } = setup();
  const made = await make(['read']);
  fault.down = true;
  await assert.rejects(async () => check.identify(made.key), StorageUnavailableError);
  await assert.rejects(async () => check.identify(generateKey().key), StorageUnavailableError, 'whether an id exists cannot be told either');
  fault.down = false;
  assert.equal(reasonOf(await check.identify(made.key)), 'ok');
  close();
});

test('a key known already: a wrong secret is refused without a read even when its 2 s are up; a revoked or expired key is answered from memory for good', LIMIT, async () => {
  const { db, check, clock, lookups, make, close } = setup();
  const live = await make(['read']);
  const revoked = await make(['read']);
  const expiring = await make(['read'], '2030-01-01T00:00:01.000Z');
  await revokeApiKey(db, revoked.id);
  for (const { key } of [live, revoked, expiring]) await check.identify(key);
  clock.now += 60_000;
  clock.wall += 60_000;
  assert.deepEqual(reasonOf(check.identify(keyWithOtherSecret(live.id)) as Identified), 'invalid');
  assert.deepEqual(reasonOf(check.identify(revoked.key) as Identified), 'revoked');
  assert.deepEqual(reasonOf(check.identify(expiring.key) as Identified), 'expired');
  assert.equal(lookups.length, 3, 'no read after the first of each');
  assert.equal(reasonOf(await check.identify(live.key)), 'ok', 'the holder of the live key: read again');
  assert.equal(lookups.length, 4);
  close();
});

test('admit is asked before any database work for a credential not yet known to be valid, and a throw stops that work', LIMIT, async () => {
  const { check, ids, lookups, refreshes, make, close } = setup();
  await ids.refreshed();
  const made = await make(['read']);
  const stop = (): void => {
    throw new Error('429');
  };
  const asked: string[] = [];
  const count = (name: string) => () => void asked.push(name);
  assert.throws(() => check.identify(generateKey().key, stop), /429/, 'an invented key');
  assert.throws(() => check.identify(made.key, stop), /429/, 'a key not read yet');
  assert.equal(refreshes.length, 1, 'no refresh');
  assert.deepEqual(lookups, [], 'no read');
  check.identify('svc_x', count('malformed'));
  assert.equal(reasonOf(await check.identify(made.key, count('first read'))), 'ok');
  check.identify(made.key, count('from memory'));
  assert.deepEqual(asked, ['first read']);
  close();
});

test('past maxKnown the least recently used key is read again; its id is still known, so it works', LIMIT, async () => {
  const { check, lookups, make, close } = setup({ maxKnown: 2 });
  const keys = await Promise.all([make(['read']), make(['read']), make(['read'])]);
  for (const { key } of keys) assert.equal(reasonOf(await check.identify(key)), 'ok');
  assert.equal(reasonOf(check.identify(keys[2]?.key ?? '') as Identified), 'ok', 'the newest is still held');
  assert.equal(reasonOf(await check.identify(keys[0]?.key ?? '')), 'ok', 'the oldest was forgotten and is read again');
  assert.equal(lookups.length, 4);
  close();
});
