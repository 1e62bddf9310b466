import assert from 'node:assert/strict';
import type { DatabaseSync } from 'node:sqlite';
import { after, before, test } from 'node:test';
import { migrate } from '../../src/db/migrate.ts';
import type { Storage } from '../../src/db/storage.ts';
import type { Product, ProductPatch } from '../../src/products/model.ts';
import { createProductUseCases, type ProductUseCases } from '../../src/products/use-cases.ts';
import { validateNewProduct, validateProductPatch } from '../../src/products/validate.ts';
import type { Precondition } from '../../src/shared/changes.ts';
import { openDatabase } from '../../src/sqlite/database.ts';
import { createSqliteStorage } from '../../src/sqlite/storage.ts';
import { createWorkspaceUseCases } from '../../src/workspaces/use-cases.ts';
import { validateWorkspacePatch } from '../../src/workspaces/validate.ts';

// The use cases' rules on real storage: a migrated in-memory SQLite database, its repositories and
// its write transactions, as the service runs them.

const CREATED = new Date('2026-11-22T09:30:00.000Z');
const CHANGED = new Date('2026-11-23T10:00:00.000Z');

let db: DatabaseSync;
let storage: Storage;
let products: ProductUseCases;
// Products are created at CREATED and changed at CHANGED, so a change is seen to move updatedAt.
let clock = CREATED;

before(() => {
  db = openDatabase(':memory:');
  migrate(db);
  storage = createSqliteStorage(db);
  products = createProductUseCases(storage.products, () => clock);
});
after(() => db.close());

const always: Precondition = () => true;
const never: Precondition = () => false;

async function storeProduct(fields: ProductPatch = {}): Promise<Product> {
  clock = CREATED;
  const input = { name: 'Lamp', priceInCents: 100, ...fields };
  const product = await storage.transaction((tx) => products.create(tx, input));
  clock = CHANGED;
  return product;
}

function rowCount(table: string): number {
  return Number((db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n);
}

test('the archived rule: an archived result may not differ in name or price from what is stored', async () => {
  const cases: [ProductPatch, ProductPatch, string][] = [
    [{ status: 2 }, { name: 'New' }, 'archived'],
    [{ status: 2 }, { priceInCents: 1 }, 'archived'],
    [{ status: 1 }, { status: 2, name: 'New' }, 'archived'],
    [{ status: 2 }, { status: 1, name: 'New' }, 'changed'],
    [{ status: 2 }, { status: 1 }, 'changed'],
    [{ status: 1 }, { status: 2 }, 'changed'],
    [{ status: 2 }, { name: 'Lamp', priceInCents: 100 }, 'unchanged'],
    [{ status: 2 }, { status: 2 }, 'unchanged'],
  ];
  for (const [stored, patch, kind] of cases) {
    const product = await storeProduct(stored);
    const outcome = await storage.transaction((tx) => products.change(tx, product.id, patch, always));
    const at = `${JSON.stringify(stored)} + ${JSON.stringify(patch)}`;
    assert.equal(outcome.kind, kind, at);
    const now = await storage.products.findById(product.id);
    // Only a real change writes: a refused or no-op patch leaves the row as it was, version included.
    if (kind === 'changed') assert.deepEqual([now?.version, now?.updatedAt], [2, CHANGED.toISOString()], at);
    else assert.deepEqual(now, product, at);
  }
});

test('a change moves updatedAt to now and the version up by one; the precondition sees the version read for update', async () => {
  const product = await storeProduct();
  await storage.transaction((tx) => products.change(tx, product.id, { priceInCents: 5 }, always));
  const seen: number[] = [];
  const outcome = await storage.transaction((tx) =>
    products.change(tx, product.id, { name: 'Brass' }, (version) => (seen.push(version), true)),
  );
  assert.deepEqual(seen, [2]);
  const expected = { ...product, name: 'Brass', priceInCents: 5, version: 3, updatedAt: CHANGED.toISOString() };
  assert.deepEqual(outcome, { kind: 'changed', resource: expected });
  assert.deepEqual(await storage.products.findById(product.id), expected, 'what was stored is what was answered');
});

test('order of refusals: not found, then the precondition, then the archived rule; a refusal changes nothing', async () => {
  const product = await storeProduct({ status: 2 });
  const missing = product.id + 1_000;
  const rows = rowCount('products');
  const change = (id: number, precondition: Precondition) => storage.transaction((tx) => products.change(tx, id, { name: 'x' }, precondition));
  const remove = (id: number, precondition: Precondition) => storage.transaction((tx) => products.remove(tx, id, precondition));
  assert.deepEqual(await change(missing, never), { kind: 'not_found' });
  assert.deepEqual(await change(product.id, never), { kind: 'precondition_failed' });
  assert.deepEqual(await change(product.id, always), { kind: 'archived' });
  assert.deepEqual(await remove(product.id, never), { kind: 'precondition_failed' });
  assert.deepEqual(await remove(missing, always), { kind: 'not_found' });
  assert.deepEqual(await storage.products.findById(product.id), product, 'the refusals left it as it was');
  assert.equal(rowCount('products'), rows);
  assert.deepEqual(await remove(product.id, always), { kind: 'removed' });
  assert.equal(await storage.products.findById(product.id), undefined);
  assert.equal(rowCount('products'), rows - 1);
});

test('workspaces: the same change and delete rules, on their own table', async () => {
  const workspaces = createWorkspaceUseCases(storage.workspaces, () => CHANGED);
  const workspace = await storage.transaction((tx) => workspaces.create(tx, { name: 'Acme' }));
  const change = (name: string, precondition: Precondition) => storage.transaction((tx) => workspaces.change(tx, workspace.id, { name }, precondition));
  assert.deepEqual(await change('Other', never), { kind: 'precondition_failed' });
  assert.deepEqual(await change('Acme', always), { kind: 'unchanged', resource: workspace });
  assert.deepEqual(await storage.workspaces.findById(workspace.id), workspace);
  const changed = await change('Acme Ltd', always);
  assert.deepEqual(changed, { kind: 'changed', resource: { ...workspace, name: 'Acme Ltd', version: 2 } });
  assert.deepEqual(await storage.transaction((tx) => workspaces.remove(tx, workspace.id, never)), { kind: 'precondition_failed' });
  assert.deepEqual(await storage.transaction((tx) => workspaces.remove(tx, workspace.id, always)), { kind: 'removed' });
  assert.equal(await storage.workspaces.findById(workspace.id), undefined);
});

test('patch validation uses the create rules: every member optional, null a type error, unknown members refused', () => {
  assert.deepEqual(validateProductPatch({}), { ok: true, value: {} });
  assert.deepEqual(validateProductPatch({ name: ' x ', status: 2 }), { ok: true, value: { name: 'x', status: 2 } });
  const refused = validateProductPatch({ name: null, priceInCents: '1', status: 9, extra: true });
  assert.equal(refused.ok, false);
  const codes = refused.ok ? [] : refused.errors.map((e) => `${'pointer' in e ? e.pointer : ''} ${e.code}`);
  assert.deepEqual(codes, ['/name type', '/priceInCents type', '/status invalid_enum', '/extra unknown_field']);
  // The same body is judged by the same rules on create, where name and price are required.
  const created = validateNewProduct({ priceInCents: '1', status: 9, extra: true });
  const createdCodes = created.ok ? [] : created.errors.map((e) => e.code);
  assert.deepEqual(createdCodes, ['required', 'type', 'invalid_enum', 'unknown_field']);
  assert.deepEqual(validateWorkspacePatch([]), { ok: false, errors: [{ pointer: '', code: 'type', detail: 'The request body must be a JSON object.' }] });
});
