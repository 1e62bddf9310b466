import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { openDatabase } from '../../src/sqlite/database.ts';
import { StorageBusyError } from '../../src/db/errors.ts';
import { WriteBatcher } from '../../src/sqlite/write-batcher.ts';

function fileDatabase(t: { after(fn: () => void): void }): { db: DatabaseSync; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-batcher-'));
  const path = join(dir, 'batch.db');
  const db = openDatabase(path, { create: true });
  db.exec('CREATE TABLE t (v TEXT NOT NULL) STRICT');
  t.after(() => {
    if (db.isOpen) db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { db, path };
}

test('writes queued in one turn share one commit, and each resolves only once it is visible to another connection', async (t) => {
  const { db, path } = fileDatabase(t);
  const sizes: number[] = [];
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  const batcher = new WriteBatcher(db, insert, { onCommit: (size) => sizes.push(size) });
  const reader = new DatabaseSync(path, { readOnly: true });
  t.after(() => reader.close());
  const count = (): number => Number(reader.prepare('SELECT count(*) AS n FROM t').get()?.['n']);
  const seenAtResolve = await Promise.all(
    Array.from({ length: 5 }, (_, i) => batcher.run(async (tx) => tx.run(`v${i}`)).then(() => count())),
  );
  assert.deepEqual(sizes, [5]);
  assert.deepEqual(seenAtResolve, [5, 5, 5, 5, 5]);
});

test('a failing write is rolled back alone; the others in its batch commit', async (t) => {
  const { db } = fileDatabase(t);
  const batcher = new WriteBatcher(db, db.prepare('INSERT INTO t (v) VALUES (?)'));
  const results = await Promise.allSettled([
    batcher.run(async (tx) => tx.run('kept 1')),
    batcher.run(async (tx) => {
      tx.run('written, then undone');
      throw new Error('rule broken after a write');
    }),
    batcher.run(async (tx) => tx.run('kept 2')),
  ]);
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
  assert.match(String((results[1] as PromiseRejectedResult).reason), /rule broken after a write/);
  const rows = db.prepare('SELECT v FROM t ORDER BY rowid').all().map((row) => row['v']);
  assert.deepEqual(rows, ['kept 1', 'kept 2']);
});

test('a closed database rejects every queued write instead of leaving them pending', async (t) => {
  const { db } = fileDatabase(t);
  const batcher = new WriteBatcher(db, null);
  const pending = [batcher.run(async () => 1), batcher.run(async () => 2)];
  db.close();
  for (const write of pending) await assert.rejects(write, /not open/);
});

test('a write lock held by another connection past busy_timeout is StorageBusyError, and nothing is written', async (t) => {
  const { db, path } = fileDatabase(t);
  db.exec('PRAGMA busy_timeout = 50');
  const other = new DatabaseSync(path);
  other.exec('BEGIN IMMEDIATE');
  t.after(() => other.close());
  const batcher = new WriteBatcher(db, db.prepare('INSERT INTO t (v) VALUES (?)'));
  await assert.rejects(batcher.run(async (tx) => tx.run('never')), StorageBusyError);
  other.exec('ROLLBACK');
  assert.equal(Number(db.prepare('SELECT count(*) AS n FROM t').get()?.['n']), 0);
});
