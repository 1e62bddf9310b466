import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Storage } from '../../src/db/storage.ts';
import type { NewRow } from '../../src/resources/repository.ts';
import type { Resource } from '../../src/resources/resource.ts';
import type { AnyStored } from '../../src/resources/rows.ts';
import { changingPatch, filtersOf, repository, RESOURCES, validBody, NEWEST_VERSION } from './resources.ts';

/** A fresh, migrated, empty storage of one engine, and how to let it go. */
export interface StorageUnderTest {
  storage: Storage;
  close(): Promise<void>;
}

const AT = '2026-11-22T09:30:00.000Z';
const LATER = '2026-11-23T10:00:00.000Z';

// A stored resource as a list holds it.
function withoutVersion({ version: _version, ...rest }: AnyStored): Omit<AnyStored, 'version'> {
  return rest;
}

// The n-th new row of `resource`: valid values of every field, differing with n.
const rowOf = (resource: Resource, n: number): NewRow => ({ ...validBody(resource, n, NEWEST_VERSION), createdAt: AT, updatedAt: AT }) as NewRow;

function resourceContract(engine: string, resource: Resource, open: () => Promise<StorageUnderTest>): void {
  const name = resource.plural;
  let made = 0;
  const insertOne = (storage: Storage): Promise<AnyStored> => storage.transaction((tx) => repository(tx, resource).insert(rowOf(resource, made++)));
  const findById = (storage: Storage, id: number): Promise<AnyStored | undefined> => repository(storage, resource).findById(id);
  // SQLite answers a list at once, PostgreSQL with a promise: the contract awaits either.
  const listBefore = async (storage: Storage, beforeId: number | null, limit: number) => repository(storage, resource).listBefore(beforeId, limit, []);

  test(`${engine} ${name}: insert assigns increasing ids at version 1, and findById reads back what was stored`, async () => {
    const { storage, close } = await open();
    const first = await insertOne(storage);
    const second = await insertOne(storage);
    assert.ok(first.id >= 1 && second.id > first.id);
    assert.equal(first.version, 1);
    assert.deepEqual(await findById(storage, first.id), first);
    assert.equal(await findById(storage, second.id + 1), undefined);
    await close();
  });

  test(`${engine} ${name}: listBefore is newest first, exclusive of beforeId, at most limit`, async () => {
    const { storage, close } = await open();
    const ids: number[] = [];
    for (let i = 0; i < 10; i++) ids.unshift((await insertOne(storage)).id);
    const idsOf = async (beforeId: number | null, limit: number): Promise<number[]> => (await listBefore(storage, beforeId, limit)).map((row) => row.id);
    assert.deepEqual(await idsOf(null, 3), ids.slice(0, 3));
    assert.deepEqual(await idsOf(ids[2] ?? 0, 3), ids.slice(3, 6));
    assert.deepEqual(await idsOf(ids[8] ?? 0, 5), ids.slice(9));
    assert.deepEqual(await idsOf(ids[9] ?? 0, 5), []);
    assert.deepEqual(await idsOf(null, 100), ids);
    await close();
  });

  test(`${engine} ${name}: update stores the fields, updatedAt and version; remove deletes once`, async () => {
    const { storage, close } = await open();
    const stored = await insertOne(storage);
    // Every field changed, an object field's every member too.
    const changed = { ...stored, ...changingPatch(resource, made, NEWEST_VERSION), updatedAt: LATER, version: 2 } as AnyStored;
    await storage.transaction(async (tx) => {
      assert.deepEqual(await repository(tx, resource).findForUpdate(stored.id), stored);
      await repository(tx, resource).update(changed);
    });
    assert.deepEqual(await findById(storage, stored.id), changed);
    assert.equal(await storage.transaction((tx) => repository(tx, resource).remove(stored.id)), true);
    assert.equal(await storage.transaction((tx) => repository(tx, resource).remove(stored.id)), false);
    assert.equal(await findById(storage, stored.id), undefined);
    assert.equal(await storage.transaction((tx) => repository(tx, resource).findForUpdate(stored.id)), undefined);
    await close();
  });

  test(`${engine} ${name}: an id is never given again, not even the newest one after it is deleted`, async () => {
    const { storage, close } = await open();
    const older = await insertOne(storage);
    const newest = await insertOne(storage);
    await storage.transaction((tx) => repository(tx, resource).remove(newest.id));
    const next = await insertOne(storage);
    assert.ok(next.id > newest.id, `id ${next.id} reuses ${newest.id}`);
    assert.ok(newest.id > older.id);
    await close();
  });

  test(`${engine} ${name}: a transaction that rejects leaves nothing behind`, async () => {
    const { storage, close } = await open();
    const kept = await insertOne(storage);
    const failed = storage.transaction(async (tx) => {
      await repository(tx, resource).insert(rowOf(resource, made++));
      await repository(tx, resource).update({ ...kept, ...changingPatch(resource, made, NEWEST_VERSION), version: 2 } as AnyStored);
      throw new Error('the work failed after writing');
    });
    await assert.rejects(failed, /the work failed after writing/);
    assert.deepEqual(await listBefore(storage, null, 10), [withoutVersion(kept)]);
    await close();
  });
}

/**
 * The contract every Storage implementation must pass (one suite, many implementations):
 * what is written in a transaction reads back exactly, newest first, in keyset pages; a rejected
 * transaction leaves nothing; ids are never reused.
 */
export function repositoryContract(engine: string, open: () => Promise<StorageUnderTest>, resources: readonly Resource[] = RESOURCES): void {
  for (const resource of resources) {
    resourceContract(engine, resource, open);
    for (const filter of filtersOf(resource)) filterContract(engine, resource, filter.field, open);
  }

  test(`${engine}: a single write commits its one statement and resolves with the work's result`, async () => {
    const { storage, close } = await open();
    for (const resource of resources) {
      const made = await storage.singleWrite((tx) => repository(tx, resource).insert(rowOf(resource, 0)));
      assert.deepEqual(await repository(storage, resource).findById(made.id), made);
    }
    await assert.rejects(storage.singleWrite(async () => Promise.reject(new Error('refused by the work'))), /refused by the work/);
    await close();
  });

  test(`${engine}: a single write that reads before it writes is refused before its second statement, and writes nothing`, async () => {
    const { storage, close } = await open();
    for (const resource of resources) {
      const readThenWrite = storage.singleWrite(async (tx) => {
        await repository(tx, resource).findById(1);
        return repository(tx, resource).insert(rowOf(resource, 1));
      });
      await assert.rejects(readThenWrite, /singleWrite: a work made a second/);
      assert.deepEqual(await repository(storage, resource).listBefore(null, 10, []), []);
    }
    await close();
  });
}

// The list of one value of an integer enum field (`status=2`) pages those only, newest first.
function filterContract(engine: string, resource: Resource, field: string, open: () => Promise<StorageUnderTest>): void {
  test(`${engine} ${resource.plural}: listBefore of one ${field} pages that ${field} only, newest first`, async () => {
    const { storage, close } = await open();
    const spec = resource.fields[field];
    const choices = spec?.kind === 'scalar' ? (spec.choices ?? []) : [];
    const ids: number[] = [];
    const values: unknown[] = [];
    for (let n = 0; n < 8; n++) {
      const value = choices[(n * 5 + 1) % choices.length];
      const stored = await storage.transaction((tx) => repository(tx, resource).insert({ ...rowOf(resource, n), [field]: value } as NewRow));
      ids.push(stored.id);
      values.push(value);
    }
    const wanted = choices.at(-1) as number;
    const matching = ids.filter((_, i) => values[i] === wanted).reverse();
    const filters = [{ field, value: wanted }];
    const firstPage = await repository(storage, resource).listBefore(null, 2, filters);
    assert.deepEqual(firstPage.map((row) => row.id), matching.slice(0, 2));
    const rest = await repository(storage, resource).listBefore(firstPage.at(-1)?.id ?? 0, 10, filters);
    assert.deepEqual(rest.map((row) => row.id), matching.slice(2));
    assert.ok(rest.every((row) => row[field] === wanted));
    await close();
  });
}
