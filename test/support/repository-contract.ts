import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Repositories, Storage } from '../../src/db/storage.ts';

/** A fresh, migrated, empty storage of one engine, and how to let it go. */
export interface StorageUnderTest {
  storage: Storage;
  close(): Promise<void>;
}

interface Stored {
  id: number;
  name: string;
  createdAt: string;
  updatedAt: string;
  version: number;
}

// A product as a list holds it.
function withoutVersion({ version: _version, ...rest }: Stored): Omit<Stored, 'version'> {
  return rest;
}

// Products and workspaces seen through one shape, so one contract covers both.
interface Resource {
  insert(tx: Repositories, name: string): Promise<Stored>;
  tx(tx: Repositories): Repositories['products'] | Repositories['workspaces'];
  findById(storage: Storage, id: number): Promise<Stored | undefined>;
  /** Without `version` for products: a list reads none. */
  listBefore(storage: Storage, beforeId: number | null, limit: number): Promise<Omit<Stored, 'version'>[]>;
}

const AT = '2026-11-22T09:30:00.000Z';
const LATER = '2026-11-23T10:00:00.000Z';

const RESOURCES: Record<string, Resource> = {
  products: {
    insert: (tx, name) => tx.products.insert({ name, priceInCents: 1, status: 1, createdAt: AT, updatedAt: AT }),
    tx: (tx) => tx.products,
    findById: (storage, id) => storage.products.findById(id),
    // SQLite answers a list at once, PostgreSQL with a promise: the contract awaits either.
    listBefore: async (storage, beforeId, limit) => storage.products.listBefore(beforeId, limit, null),
  },
  workspaces: {
    insert: (tx, name) => tx.workspaces.insert({ name, createdAt: AT, updatedAt: AT }),
    tx: (tx) => tx.workspaces,
    findById: (storage, id) => storage.workspaces.findById(id),
    listBefore: (storage, beforeId, limit) => storage.workspaces.listBefore(beforeId, limit),
  },
};

function resourceContract(engine: string, name: string, resource: Resource, open: () => Promise<StorageUnderTest>): void {
  const insertOne = (storage: Storage, label: string): Promise<Stored> => storage.transaction((tx) => resource.insert(tx, label));

  test(`${engine} ${name}: insert assigns increasing ids at version 1, and findById reads back what was stored`, async () => {
    const { storage, close } = await open();
    const first = await insertOne(storage, 'first \u{1F600}');
    const second = await insertOne(storage, 'second');
    assert.ok(first.id >= 1 && second.id > first.id);
    assert.equal(first.version, 1);
    assert.deepEqual(await resource.findById(storage, first.id), first);
    assert.equal(await resource.findById(storage, second.id + 1), undefined);
    await close();
  });

  test(`${engine} ${name}: listBefore is newest first, exclusive of beforeId, at most limit`, async () => {
    const { storage, close } = await open();
    const ids: number[] = [];
    for (let i = 0; i < 10; i++) ids.unshift((await insertOne(storage, `n${i}`)).id);
    const idsOf = async (beforeId: number | null, limit: number): Promise<number[]> =>
      (await resource.listBefore(storage, beforeId, limit)).map((row) => row.id);
    assert.deepEqual(await idsOf(null, 3), ids.slice(0, 3));
    assert.deepEqual(await idsOf(ids[2] ?? 0, 3), ids.slice(3, 6));
    assert.deepEqual(await idsOf(ids[8] ?? 0, 5), ids.slice(9));
    assert.deepEqual(await idsOf(ids[9] ?? 0, 5), []);
    assert.deepEqual(await idsOf(null, 100), ids);
    await close();
  });

  test(`${engine} ${name}: update stores the fields, updatedAt and version; remove deletes once`, async () => {
    const { storage, close } = await open();
    const stored = await insertOne(storage, 'before');
    const changed = { ...stored, name: 'after', updatedAt: LATER, version: 2 };
    await storage.transaction(async (tx) => {
      assert.deepEqual(await resource.tx(tx).findForUpdate(stored.id), stored);
      await resource.tx(tx).update(changed as never);
    });
    assert.deepEqual(await resource.findById(storage, stored.id), changed);
    assert.equal(await storage.transaction((tx) => resource.tx(tx).remove(stored.id)), true);
    assert.equal(await storage.transaction((tx) => resource.tx(tx).remove(stored.id)), false);
    assert.equal(await resource.findById(storage, stored.id), undefined);
    assert.equal(await storage.transaction((tx) => resource.tx(tx).findForUpdate(stored.id)), undefined);
    await close();
  });

  test(`${engine} ${name}: an id is never given again, not even the newest one after it is deleted`, async () => {
    const { storage, close } = await open();
    const older = await insertOne(storage, 'older');
    const newest = await insertOne(storage, 'newest');
    await storage.transaction((tx) => resource.tx(tx).remove(newest.id));
    const next = await insertOne(storage, 'next');
    assert.ok(next.id > newest.id, `id ${next.id} reuses ${newest.id}`);
    assert.ok(newest.id > older.id);
    await close();
  });

  test(`${engine} ${name}: a transaction that rejects leaves nothing behind`, async () => {
    const { storage, close } = await open();
    const kept = await insertOne(storage, 'kept');
    const failed = storage.transaction(async (tx) => {
      await resource.insert(tx, 'rolled back');
      await resource.tx(tx).update({ ...kept, name: 'changed', version: 2 } as never);
      throw new Error('the work failed after writing');
    });
    await assert.rejects(failed, /the work failed after writing/);
    const listed = await resource.listBefore(storage, null, 10);
    assert.deepEqual(listed, [name === 'products' ? withoutVersion(kept) : kept]);
    await close();
  });
}

/**
 * The contract every Storage implementation must pass (one suite, many implementations):
 * what is written in a transaction reads back exactly, newest first, in keyset pages; a rejected
 * transaction leaves nothing; ids are never reused.
 */
export function repositoryContract(engine: string, open: () => Promise<StorageUnderTest>): void {
  for (const [name, resource] of Object.entries(RESOURCES)) resourceContract(engine, name, resource, open);

  test(`${engine} products: listBefore of one status pages that status only, newest first`, async () => {
    const { storage, close } = await open();
    const statuses = [1, 2, 2, 1, 2, 1, 1, 2] as const;
    const ids: number[] = [];
    for (const status of statuses) {
      const product = await storage.transaction((tx) => tx.products.insert({ name: `s${status}`, priceInCents: 1, status, createdAt: AT, updatedAt: AT }));
      ids.push(product.id);
    }
    const archived = ids.filter((_, i) => statuses[i] === 2).reverse();
    const firstPage = await storage.products.listBefore(null, 2, 2);
    assert.deepEqual(firstPage.map((p) => p.id), archived.slice(0, 2));
    const rest = await storage.products.listBefore(firstPage.at(-1)?.id ?? 0, 10, 2);
    assert.deepEqual(rest.map((p) => p.id), archived.slice(2));
    assert.ok(rest.every((p) => p.status === 2));
    assert.equal((await storage.products.listBefore(null, 100, 1)).length, 4);
    await close();
  });

  test(`${engine}: a single write commits its one statement and resolves with the work's result`, async () => {
    const { storage, close } = await open();
    const made = await storage.singleWrite((tx) => tx.workspaces.insert({ name: 'single', createdAt: AT, updatedAt: AT }));
    assert.deepEqual(await storage.workspaces.findById(made.id), made);
    await assert.rejects(storage.singleWrite(async () => Promise.reject(new Error('refused by the work'))), /refused by the work/);
    await close();
  });
}
