import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Scope } from '../../src/callers/scopes.ts';
import type { Storage } from '../../src/db/storage.ts';
import type { ApiKey, NewStoredKey } from '../../src/keys/model.ts';
import type { StorageUnderTest } from './repository-contract.ts';

const AT = '2026-11-22T09:30:00.000Z';
const LATER = '2026-11-23T10:00:00.123Z';
const DIGEST = 'A'.repeat(43);

let made = 0;
// Distinct public ids of the stored shape (12 base62 characters).
function anId(): string {
  made++;
  return `k${String(made).padStart(11, '0')}`;
}

function insertOne(storage: Storage, fields: Partial<NewStoredKey> = {}): Promise<ApiKey> {
  const apiKey = { id: anId(), name: 'ci', scopes: [Scope.read], digest: DIGEST, createdAt: AT, expiresAt: null, revokedAt: null, apiVersion: '2026-11-21', ...fields };
  return storage.transaction((tx) => tx.keys.insert(apiKey));
}

/**
 * What every engine's ApiKeyRepository must do: keys read back exactly (every scope set, times with
 * milliseconds, nulls), newest first in keyset pages by a seq never reused, a revocation that keeps
 * its first time, and ids unique.
 */
export function keyRepositoryContract(engine: string, open: () => Promise<StorageUnderTest>): void {
  test(`${engine} api keys: insert assigns increasing seqs, and findById reads back exactly what was stored`, async () => {
    const { storage, close } = await open();
    const scopeSets = [[Scope.read], [Scope.write], [Scope.admin], [Scope.read, Scope.write], [Scope.read, Scope.admin], [Scope.write, Scope.admin], [Scope.read, Scope.write, Scope.admin]];
    const stored: ApiKey[] = [];
    for (const scopes of scopeSets) {
      stored.push(await insertOne(storage, { scopes, name: `n \u{1F600} ${scopes.join()}`, expiresAt: scopes.length === 1 ? LATER : null, apiVersion: scopes.length === 2 ? '2026-12-05' : '2026-11-21' }));
    }
    for (const apiKey of stored) assert.deepEqual(await storage.keys.findById(apiKey.id), apiKey);
    assert.ok(stored.every((apiKey) => apiKey.version === 1), 'a key starts at version 1');
    assert.ok(stored.every((apiKey, i) => i === 0 || apiKey.seq > (stored[i - 1]?.seq ?? Infinity)));
    assert.equal(await storage.keys.findById('k99999999999'), undefined);
    await close();
  });

  test(`${engine} api keys: listBefore is newest first, exclusive of beforeSeq, at most limit`, async () => {
    const { storage, close } = await open();
    const seqs: number[] = [];
    for (let i = 0; i < 7; i++) seqs.unshift((await insertOne(storage)).seq);
    const page = async (beforeSeq: number | null, limit: number): Promise<number[]> => (await storage.keys.listBefore(beforeSeq, limit)).map((apiKey) => apiKey.seq);
    assert.deepEqual(await page(null, 3), seqs.slice(0, 3));
    assert.deepEqual(await page(seqs[2] ?? 0, 3), seqs.slice(3, 6));
    assert.deepEqual(await page(seqs[5] ?? 0, 3), seqs.slice(6));
    assert.deepEqual(await page(seqs[6] ?? 0, 3), []);
    await close();
  });

  test(`${engine} api keys: revoke sets revokedAt once and moves the version on; a second revoke keeps both; a transaction that rejects leaves nothing`, async () => {
    const { storage, close } = await open();
    const apiKey = await insertOne(storage);
    await storage.transaction(async (tx) => {
      assert.deepEqual(await tx.keys.findForUpdate(apiKey.id), apiKey);
      await tx.keys.revoke(apiKey.id, LATER);
    });
    await storage.transaction((tx) => tx.keys.revoke(apiKey.id, '2027-01-01T00:00:00.000Z'));
    assert.deepEqual(await storage.keys.findById(apiKey.id), { ...apiKey, revokedAt: LATER, version: 2 });
    const failed = storage.transaction(async (tx) => {
      await tx.keys.insert({ ...apiKey, id: anId() });
      throw new Error('the work failed after writing');
    });
    await assert.rejects(failed, /the work failed after writing/);
    assert.deepEqual((await storage.keys.listBefore(null, 10)).map((row) => row.id), [apiKey.id]);
    await close();
  });

  test(`${engine} api keys: an id is stored once; the refused insert takes nothing with it`, async () => {
    const { storage, close } = await open();
    const first = await insertOne(storage);
    await assert.rejects(storage.transaction((tx) => tx.keys.insert({ ...first })));
    const next = await insertOne(storage);
    assert.ok(next.seq > first.seq);
    assert.deepEqual((await storage.keys.listBefore(null, 10)).map((row) => row.id), [next.id, first.id]);
    await close();
  });

  test(`${engine} api keys: idsAfter gives the ids above a seq, oldest first, and the highest seq among them`, async () => {
    const { storage, close } = await open();
    const empty = await storage.keys.idsAfter(0);
    assert.deepEqual(empty, { ids: [], lastSeq: 0 });
    const made: ApiKey[] = [];
    for (let i = 0; i < 4; i++) made.push(await insertOne(storage, i === 1 ? { revokedAt: LATER } : {}));
    assert.deepEqual(await storage.keys.idsAfter(0), { ids: made.map((apiKey) => apiKey.id), lastSeq: made[3]?.seq }, 'a revoked key too: its id still names a key');
    assert.deepEqual(await storage.keys.idsAfter(made[1]?.seq ?? 0), { ids: made.slice(2).map((apiKey) => apiKey.id), lastSeq: made[3]?.seq });
    assert.deepEqual(await storage.keys.idsAfter(made[3]?.seq ?? 0), { ids: [], lastSeq: made[3]?.seq }, 'nothing new: the seq asked after');
    await close();
  });

  test(`${engine} api keys: update writes the name, the API version and the version of one key, and nothing else`, async () => {
    const { storage, close } = await open();
    const apiKey = await insertOne(storage, { expiresAt: LATER });
    const other = await insertOne(storage);
    const changed: ApiKey = { ...apiKey, name: 'renamed \u{1F600}', apiVersion: '2026-12-05', version: 2 };
    await storage.transaction((tx) => tx.keys.update(changed));
    assert.deepEqual(await storage.keys.findById(apiKey.id), changed);
    // Only the changeable members: a record with other scopes, digest or times changes none of them.
    await storage.transaction((tx) => tx.keys.update({ ...changed, scopes: [Scope.admin], digest: 'B'.repeat(43), createdAt: LATER, expiresAt: null, revokedAt: LATER, version: 3 }));
    assert.deepEqual(await storage.keys.findById(apiKey.id), { ...changed, version: 3 });
    assert.deepEqual(await storage.keys.findById(other.id), other);
    await close();
  });
}
