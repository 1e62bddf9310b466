import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Repositories } from '../../src/db/storage.ts';
import type { Product } from '../../src/products/model.ts';
import { createProductUseCases } from '../../src/products/use-cases.ts';
import { validateNewProduct, validateProductPatch } from '../../src/products/validate.ts';
import { validateWorkspacePatch } from '../../src/workspaces/validate.ts';

const AT = '2026-11-22T09:30:00.000Z';
const NOW = new Date('2026-11-23T10:00:00.000Z');

// An in-memory product table: enough to run the use case's rules without any database.
function memoryTx(stored: Product): { tx: Repositories; updates: Product[]; removed: number[] } {
  const updates: Product[] = [];
  const removed: number[] = [];
  let current: Product | undefined = stored;
  const products = {
    findForUpdate: async (id: number) => (id === current?.id ? current : undefined),
    update: async (product: Product) => {
      updates.push(product);
      current = product;
    },
    remove: async (id: number) => {
      removed.push(id);
      current = undefined;
      return true;
    },
  };
  return { tx: { products } as unknown as Repositories, updates, removed };
}

const product = (fields: Partial<Product> = {}): Product => ({
  id: 5, name: 'Lamp', priceInCents: 100, status: 1, createdAt: AT, updatedAt: AT, version: 1, ...fields,
});
const useCases = createProductUseCases({} as never, () => NOW);
const always = (): boolean => true;

test('the archived rule: an archived result may not differ in name or price from what is stored', async () => {
  const cases: [Partial<Product>, Parameters<typeof useCases.change>[2], string][] = [
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
    const { tx, updates } = memoryTx(product(stored));
    const outcome = await useCases.change(tx, 5, patch, always);
    assert.equal(outcome.kind, kind, `${JSON.stringify(stored)} + ${JSON.stringify(patch)}`);
    assert.equal(updates.length, kind === 'changed' ? 1 : 0, 'only a real change writes');
  }
});

test('a change moves updatedAt to now and the version up by one; the precondition sees the stored version', async () => {
  const { tx, updates } = memoryTx(product({ version: 4 }));
  const seen: number[] = [];
  const outcome = await useCases.change(tx, 5, { name: 'Brass' }, (version) => (seen.push(version), true));
  assert.deepEqual(seen, [4]);
  assert.deepEqual(outcome, { kind: 'changed', resource: product({ name: 'Brass', version: 5, updatedAt: NOW.toISOString() }) });
  assert.deepEqual(updates, [product({ name: 'Brass', version: 5, updatedAt: NOW.toISOString() })]);
});

test('order of refusals: not found, then precondition, then the archived rule', async () => {
  const { tx, updates, removed } = memoryTx(product({ status: 2 }));
  assert.deepEqual(await useCases.change(tx, 6, { name: 'x' }, () => false), { kind: 'not_found' });
  assert.deepEqual(await useCases.change(tx, 5, { name: 'x' }, () => false), { kind: 'precondition_failed' });
  assert.deepEqual(await useCases.remove(tx, 5, () => false), { kind: 'precondition_failed' });
  assert.deepEqual(await useCases.remove(tx, 6, always), { kind: 'not_found' });
  assert.deepEqual([updates, removed], [[], []]);
  assert.deepEqual(await useCases.remove(tx, 5, always), { kind: 'removed' });
  assert.deepEqual(removed, [5]);
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
