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
}

// Products and workspaces seen through one shape, so one contract covers both.
interface ListAndGet {
  insert(tx: Repositories, name: string, createdAt: string): Promise<Stored>;
  findById(storage: Storage, id: number): Promise<Stored | undefined>;
  listBefore(storage: Storage, beforeId: number | null, limit: number): Promise<Stored[]>;
}

const RESOURCES: Record<string, ListAndGet> = {
  products: {
    insert: (tx, name, createdAt) => tx.products.insert({ name, priceInCents: 1, status: 1, createdAt }),
    findById: (storage, id) => storage.products.findById(id),
    listBefore: (storage, beforeId, limit) => storage.products.listBefore(beforeId, limit),
  },
  workspaces: {
    insert: (tx, name, createdAt) => tx.workspaces.insert({ name, createdAt }),
    findById: (storage, id) => storage.workspaces.findById(id),
    listBefore: (storage, beforeId, limit) => storage.workspaces.listBefore(beforeId, limit),
  },
};

const AT = '2026-11-22T09:30:00.000Z';

/**
 * The contract every Storage implementation must pass (STYLE.md: one suite, many implementations):
 * what is written in a transaction reads back exactly, newest first, in keyset pages.
 */
export function repositoryContract(engine: string, open: () => Promise<StorageUnderTest>): void {
  for (const [name, resource] of Object.entries(RESOURCES)) {
    test(`${engine} ${name} repository: insert assigns increasing ids and findById reads back what was stored`, async () => {
      const { storage, close } = await open();
      const first = await storage.transaction((tx) => resource.insert(tx, 'first \u{1F600}', AT));
      const second = await storage.transaction((tx) => resource.insert(tx, 'second', AT));
      assert.ok(first.id >= 1 && second.id > first.id);
      assert.deepEqual(await resource.findById(storage, first.id), first);
      assert.equal(await resource.findById(storage, second.id + 1), undefined);
      await close();
    });

    test(`${engine} ${name} repository: listBefore is newest first, exclusive of beforeId, at most limit`, async () => {
      const { storage, close } = await open();
      const ids: number[] = [];
      for (let i = 0; i < 10; i++) ids.unshift((await storage.transaction((tx) => resource.insert(tx, `n${i}`, AT))).id);
      const idsOf = async (beforeId: number | null, limit: number): Promise<number[]> =>
        (await resource.listBefore(storage, beforeId, limit)).map((row) => row.id);
      assert.deepEqual(await idsOf(null, 3), ids.slice(0, 3));
      assert.deepEqual(await idsOf(ids[2] ?? 0, 3), ids.slice(3, 6));
      assert.deepEqual(await idsOf(ids[8] ?? 0, 5), ids.slice(9));
      assert.deepEqual(await idsOf(ids[9] ?? 0, 5), []);
      assert.deepEqual(await idsOf(null, 100), ids);
      await close();
    });

    test(`${engine} ${name} repository: a transaction that rejects leaves nothing behind`, async () => {
      const { storage, close } = await open();
      const failed = storage.transaction(async (tx) => {
        await resource.insert(tx, 'rolled back', AT);
        throw new Error('the work failed after writing');
      });
      await assert.rejects(failed, /the work failed after writing/);
      assert.deepEqual(await resource.listBefore(storage, null, 10), []);
      await close();
    });
  }
}
