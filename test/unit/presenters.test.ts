import assert from 'node:assert/strict';
import { test } from 'node:test';
import { presentProduct } from '../../src/products/presenter.ts';
import { presentReadiness } from '../../src/readiness/presenter.ts';
import { presentWorkspace } from '../../src/workspaces/presenter.ts';

const createdAt = '2026-11-22T09:30:00.000Z';
const updatedAt = '2026-11-23T10:00:00.000Z';

test('a product is presented with exactly the documented members, in order', () => {
  // Extra properties on the stored object (as a row might carry) never reach the wire.
  // The version is the ETag's business, never a member of the body.
  const stored = { id: 17, name: 'Desk lamp', priceInCents: 1999, status: 1 as const, createdAt, updatedAt, version: 4, price_in_cents: 1999, secret: 'x' };
  const body = presentProduct(stored);
  assert.deepEqual(Object.keys(body), ['id', 'name', 'priceInCents', 'status', 'createdAt', 'updatedAt']);
  assert.equal(
    JSON.stringify(body),
    '{"id":17,"name":"Desk lamp","priceInCents":1999,"status":1,"createdAt":"2026-11-22T09:30:00.000Z","updatedAt":"2026-11-23T10:00:00.000Z"}',
  );
});

test('a workspace is presented with exactly the documented members, in order', () => {
  const body = presentWorkspace({ id: 3, name: 'Acme', createdAt, updatedAt, version: 2, created_at: createdAt } as Parameters<typeof presentWorkspace>[0]);
  assert.equal(JSON.stringify(body), '{"id":3,"name":"Acme","createdAt":"2026-11-22T09:30:00.000Z","updatedAt":"2026-11-23T10:00:00.000Z"}');
});

test('readiness is presented with exactly status and the two checks', () => {
  const readiness = { status: 2 as const, checks: { database: 1 as const, schema: 2 as const, extra: 1 } };
  assert.equal(JSON.stringify(presentReadiness(readiness)), '{"status":2,"checks":{"database":1,"schema":2}}');
});
