import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { StorageBusyError } from '../../src/db/errors.ts';
import { migrate } from '../../src/db/migrate.ts';
import { openDatabase } from '../../src/sqlite/database.ts';
import { products } from '../../src/products/resource.ts';
import { createSqliteStorage } from '../../src/sqlite/storage.ts';
import { repository } from '../support/resources.ts';

type After = { after(fn: () => void): void };

// In WAL mode a read meets SQLITE_BUSY only while another connection holds the file exclusively:
// WAL recovery after a crash, or the last connection's checkpoint as it closes. Neither can be
// timed from a test, so the same answer is provoked where it is certain: a file in rollback-journal
// mode, whose reader gets SQLITE_BUSY (and no busy timeout waits for it) while another connection
// holds BEGIN EXCLUSIVE. What the storage does with it is the same code either way.
function exclusivelyLockable(t: After): { path: string; storageDb: DatabaseSync; other: DatabaseSync } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-busy-reads-'));
  const path = join(dir, 'app.db');
  const setup = openDatabase(path, { create: true });
  migrate(setup);
  setup.exec('PRAGMA journal_mode = DELETE');
  setup.exec("INSERT INTO products (name, price_in_cents, status, created_at, updated_at) VALUES ('Lamp', 100, 1, '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z')");
  setup.close();
  const storageDb = new DatabaseSync(path);
  const other = new DatabaseSync(path);
  t.after(() => {
    storageDb.close();
    other.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { path, storageDb, other };
}

test('a read that meets SQLITE_BUSY is tried again on timers, without blocking, and answers once the lock is gone', { timeout: 20_000 }, async (t) => {
  const { storageDb, other } = exclusivelyLockable(t);
  const storage = createSqliteStorage(storageDb, { lockWaitMs: 5_000, resources: [products] });
  other.exec('BEGIN EXCLUSIVE');
  assert.throws(() => storageDb.prepare('SELECT count(*) FROM products').get(), /locked/, 'the lock is exclusive');
  let settled = false;
  const read = repository(storage, products).findById(1).finally(() => (settled = true));
  const readiness = storage.readiness.schemaVersion();
  // A list answers at once when it meets no lock; meeting one, it becomes a promise that waits the same way.
  const listed = repository(storage, products).listBefore(null, 10, []);
  assert.ok(listed instanceof Promise, 'a list that met the lock waits');
  // The event loop turns meanwhile: timers fire while the read waits.
  for (let i = 0; i < 5; i++) await sleep(10);
  assert.equal(settled, false, 'the read waits while the lock is held');
  other.exec('ROLLBACK');
  assert.equal((await read)?.name, 'Lamp');
  assert.ok((await readiness) > 0);
  assert.equal((await listed).length, 1);
});

test('a read still locked out after the wait is StorageBusyError (503 with Retry-After), not a crash', { timeout: 20_000 }, async (t) => {
  const { storageDb, other } = exclusivelyLockable(t);
  const storage = createSqliteStorage(storageDb, { lockWaitMs: 150, resources: [products] });
  other.exec('BEGIN EXCLUSIVE');
  const startedAt = performance.now();
  // A list answers at once when it meets no lock; one that meets it waits on timers, as a promise.
  await assert.rejects(async () => repository(storage, products).listBefore(null, 10, []), StorageBusyError);
  await assert.rejects(storage.readiness.schemaVersion(), StorageBusyError);
  assert.ok(performance.now() - startedAt >= 2 * 140, 'each waited as long as it was told');
  other.exec('ROLLBACK');
  assert.equal((await repository(storage, products).listBefore(null, 10, [])).length, 1);
});

test('errors other than SQLITE_BUSY are passed on at once, as they are', { timeout: 20_000 }, async (t) => {
  const { storageDb } = exclusivelyLockable(t);
  const storage = createSqliteStorage(storageDb, { lockWaitMs: 5_000, resources: [products] });
  storageDb.exec('DROP TABLE products');
  const startedAt = performance.now();
  await assert.rejects(repository(storage, products).findById(1), /no such table|schema/);
  assert.ok(performance.now() - startedAt < 1_000);
});
