import assert from 'node:assert/strict';
import type { DatabaseSync } from 'node:sqlite';
import { after, before, test } from 'node:test';
import { migrate } from '../../src/db/migrate.ts';
import type { Storage } from '../../src/db/storage.ts';
import { archivedIsReadOnly, products } from '../../src/products/resource.ts';
import type { AnyStored } from '../../src/resources/rows.ts';
import { createResourceUseCases, type ResourceUseCases } from '../../src/resources/use-cases.ts';
import type { Precondition } from '../../src/shared/changes.ts';
import { openDatabase } from '../../src/sqlite/database.ts';
import { createSqliteStorage } from '../../src/sqlite/storage.ts';
import { repository } from '../support/resources.ts';

// Products' own rule (src/products/resource.ts), on real storage: an archived product is read-only but for its status.

const CREATED = new Date('2026-11-22T09:30:00.000Z');
const CHANGED = new Date('2026-11-23T10:00:00.000Z');

let db: DatabaseSync;
let storage: Storage;
let useCases: ResourceUseCases;
let clock = CREATED;

before(() => {
  db = openDatabase(':memory:');
  migrate(db);
  storage = createSqliteStorage(db, { resources: [products] });
  useCases = createResourceUseCases(products, repository(storage, products), () => clock);
});
after(() => db.close());

const always: Precondition = () => true;
const never: Precondition = () => false;
type Patch = Record<string, unknown>;

async function storeProduct(fields: Patch = {}): Promise<AnyStored> {
  clock = CREATED;
  const product = await storage.transaction((tx) => useCases.create(tx, { name: 'Lamp', price: { amount: 100, currency: 'EUR' }, ...fields }));
  clock = CHANGED;
  return product;
}

test('the archived rule: an archived result may not differ in name or price (amount or currency) from what is stored', async () => {
  const cases: [Patch, Patch, string][] = [
    [{ status: 2 }, { name: 'New' }, 'refused'],
    [{ status: 2 }, { price: { amount: 1 } }, 'refused'],
    [{ status: 2 }, { price: { currency: 'USD' } }, 'refused'],
    [{ status: 1 }, { status: 2, name: 'New' }, 'refused'],
    [{ status: 2 }, { status: 1, name: 'New' }, 'changed'],
    [{ status: 2 }, { status: 1 }, 'changed'],
    [{ status: 1 }, { status: 2 }, 'changed'],
    [{ status: 2 }, { name: 'Lamp', price: { amount: 100, currency: 'EUR' } }, 'unchanged'],
    [{ status: 2 }, { status: 2 }, 'unchanged'],
  ];
  for (const [stored, patch, kind] of cases) {
    const product = await storeProduct(stored);
    const outcome = await storage.transaction((tx) => useCases.change(tx, product.id, patch, always));
    const at = `${JSON.stringify(stored)} + ${JSON.stringify(patch)}`;
    assert.equal(outcome.kind, kind, at);
    if (outcome.kind === 'refused') assert.equal(outcome.refusal, archivedIsReadOnly.refusal, at);
    const now = await repository(storage, products).findById(product.id);
    // Only a real change writes: a refused or no-op patch leaves the row as it was, version included.
    if (kind === 'changed') assert.deepEqual([now?.version, now?.updatedAt], [2, CHANGED.toISOString()], at);
    else assert.deepEqual(now, product, at);
  }
});

test('order of refusals: not found, then the precondition, then the archived rule; a refusal changes nothing', async () => {
  const product = await storeProduct({ status: 2 });
  const change = (id: number, precondition: Precondition) => storage.transaction((tx) => useCases.change(tx, id, { name: 'x' }, precondition));
  assert.deepEqual(await change(product.id + 1_000, never), { kind: 'not_found' });
  assert.deepEqual(await change(product.id, never), { kind: 'precondition_failed' });
  assert.deepEqual(await change(product.id, always), { kind: 'refused', refusal: archivedIsReadOnly.refusal });
  assert.deepEqual(await repository(storage, products).findById(product.id), product, 'the refusals left it as it was');
  assert.equal(archivedIsReadOnly.refusal.code, 'product_archived');
  assert.equal(archivedIsReadOnly.refusal.status, 409);
});
