import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { openDatabase } from '../../src/sqlite/database.ts';
import { DEFAULT_SQL_DIR, migrate } from '../../src/db/migrate.ts';
import { products } from '../../src/products/resource.ts';
import { createSqliteStorage } from '../../src/sqlite/storage.ts';
import { workspaces } from '../../src/workspaces/resource.ts';
import { repository } from '../support/resources.ts';

// A database as the previous version (schema 1) left it: migrated by 001 only, rows written with
// that version's own INSERT statements, ids with gaps (rows inserted with explicit ids, as a
// restore would), every edge of every field, and stored idempotency keys.
function version1Database(t: { after(fn: () => void): void }): DatabaseSync {
  const dir = mkdtempSync(join(tmpdir(), 'svc-v1-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const onlyFirst = join(dir, 'sql');
  mkdirSync(onlyFirst);
  copyFileSync(join(DEFAULT_SQL_DIR, '001_init.sql'), join(onlyFirst, '001_init.sql'));
  const db = openDatabase(join(dir, 'app.db'), { create: true });
  t.after(() => {
    if (db.isOpen) db.close();
  });
  assert.deepEqual(migrate(db, onlyFirst).applied, ['001_init.sql']);
  const product = db.prepare('INSERT INTO products (name, price_in_cents, status, created_at) VALUES (?, ?, ?, ?)');
  const workspace = db.prepare('INSERT INTO workspaces (name, created_at) VALUES (?, ?)');
  db.exec('BEGIN');
  for (let i = 1; i <= 3_000; i++) {
    const name = i % 7 === 0 ? '\u{1F600}'.repeat(200) : `product ${i} ' ; DROP TABLE products; --`;
    product.run(name, i % 11 === 0 ? 2_147_483_647 : i, i % 3 === 0 ? 2 : 1, new Date(Date.UTC(2026, 0, 1, 0, 0, 0, i)).toISOString());
    if (i % 2 === 0) workspace.run(`workspace ${i}`, new Date(Date.UTC(2026, 1, 1, 0, 0, 0, i)).toISOString());
  }
  db.prepare('INSERT INTO products (id, name, price_in_cents, status, created_at) VALUES (?, ?, ?, ?, ?)').run(9_000, 'restored', 0, 1, '2025-12-31T23:59:59.999Z');
  db.prepare('INSERT INTO idempotency_keys (scope, key, fingerprint, status, location, body, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run('POST /api/products', 'k1', 'fp', 201, '/api/products/1', STORED_201, Date.now() + 60_000);
  db.exec('COMMIT');
  return db;
}

// A 201 stored by version 1, as its create answered then: no updatedAt, and no ETag.
const STORED_201 = '{"id":1,"name":"Lamp \u00e9","priceInCents":1,"status":1,"createdAt":"2026-01-01T00:00:00.001Z"}';

const rows = (db: DatabaseSync, sql: string): unknown[] => db.prepare(sql).all().map((row) => ({ ...row }));

test('002 carries every row of a populated version-1 database over intact, with updatedAt = createdAt and version 1', (t) => {
  const db = version1Database(t);
  const productsBefore = rows(db, 'SELECT id, name, price_in_cents, status, created_at FROM products ORDER BY id');
  const workspacesBefore = rows(db, 'SELECT id, name, created_at FROM workspaces ORDER BY id');
  const keysBefore = rows(db, 'SELECT scope, key, fingerprint, status, location, expires_at FROM idempotency_keys');
  // Everything after 001 (003 adds a table of its own and touches none of these rows).
  assert.deepEqual(migrate(db).applied.slice(0, 1), ['002_change_and_delete.sql']);
  assert.deepEqual(rows(db, 'SELECT id, name, price_in_cents, status, created_at FROM products ORDER BY id'), productsBefore);
  assert.deepEqual(rows(db, 'SELECT id, name, created_at FROM workspaces ORDER BY id'), workspacesBefore);
  assert.deepEqual(rows(db, 'SELECT count(*) AS n FROM products WHERE updated_at <> created_at OR version <> 1'), [{ n: 0 }]);
  assert.deepEqual(rows(db, 'SELECT count(*) AS n FROM workspaces WHERE updated_at <> created_at OR version <> 1'), [{ n: 0 }]);
  assert.deepEqual(rows(db, 'SELECT scope, key, fingerprint, status, location, expires_at FROM idempotency_keys'), keysBefore);
  assert.deepEqual(rows(db, 'PRAGMA integrity_check'), [{ integrity_check: 'ok' }]);
});

test('after 002, new ids continue above the highest carried over, even once the newest is deleted', async (t) => {
  const db = version1Database(t);
  migrate(db);
  const storage = createSqliteStorage(db, { resources: [products, workspaces] });
  const at = new Date().toISOString();
  const first = await storage.transaction((tx) => repository(tx, products).insert({ name: 'new', price: { amount: 1, currency: 'EUR' }, status: 1, createdAt: at, updatedAt: at }));
  assert.equal(first.id, 9_001);
  await storage.transaction((tx) => repository(tx, products).remove(first.id));
  const second = await storage.transaction((tx) => repository(tx, products).insert({ name: 'newer', price: { amount: 1, currency: 'EUR' }, status: 1, createdAt: at, updatedAt: at }));
  assert.equal(second.id, 9_002);
  const workspace = await storage.transaction((tx) => repository(tx, workspaces).insert({ name: 'w', createdAt: at, updatedAt: at }));
  assert.equal(workspace.id, 1_501);
});

test('after 002, the list of one status is an index search and a carried-over row reads back whole', async (t) => {
  const db = version1Database(t);
  migrate(db);
  const storage = createSqliteStorage(db, { resources: [products, workspaces] });
  const archived = await repository(storage, products).listBefore(null, 500, [{ field: 'status', value: 2 }]);
  assert.equal(archived.length, 500);
  assert.ok(archived.every((p) => p.status === 2));
  assert.deepEqual(await repository(storage, products).findById(9_000), {
    // And the migrations after it gave it the default currency (008).
    id: 9_000, name: 'restored', price: { amount: 0, currency: 'EUR' }, status: 1, createdAt: '2025-12-31T23:59:59.999Z', updatedAt: '2025-12-31T23:59:59.999Z', version: 1,
  });
});

test('002 brings a 201 stored by version 1 to what the same create answers now: updatedAt last, ETag "1"', async (t) => {
  const db = version1Database(t);
  migrate(db);
  const stored = await createSqliteStorage(db, { resources: [products, workspaces] }).transaction((tx) => tx.idempotency.find('POST /api/products', 'k1', Date.now()));
  assert.equal(stored?.etag, '"1"');
  const body = JSON.parse(stored?.body ?? '{}') as Record<string, unknown>;
  assert.deepEqual(Object.keys(body), ['id', 'name', 'priceInCents', 'status', 'createdAt', 'updatedAt']);
  assert.deepEqual(body, { ...(JSON.parse(STORED_201) as object), updatedAt: '2026-01-01T00:00:00.001Z' });
});
