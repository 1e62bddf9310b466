import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { latestVersion, migrate, readMigrations } from '../../src/db/migrate.ts';
import { openDatabase } from '../../src/sqlite/database.ts';
import { BIN, schemaVersionOf, startBin } from '../support/cli.ts';
import { holdWriteLock } from '../ops/write-lock.ts';

const SQL_DIR = join(import.meta.dirname, '../../sql');

// A database one migration behind, so that migrate has a file to apply.
function databaseBehind(dir: string): string {
  const firstOnly = join(dir, 'sql');
  mkdirSync(firstOnly);
  const first = readMigrations(SQL_DIR)[0];
  assert.ok(first !== undefined && latestVersion() > first.version);
  copyFileSync(join(SQL_DIR, first.file), join(firstOnly, first.file));
  const dbPath = join(dir, 'app.db');
  const db = openDatabase(dbPath, { create: true });
  migrate(db, firstOnly);
  db.close();
  return dbPath;
}

// docs/operations.md, Another process holding the SQLite file: a command-line tool, unlike a serving process, may wait on its thread for the lock.
test('migrate waits for a write lock another process holds, then applies its files', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-migrate-lock-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const dbPath = databaseBehind(dir);
  const holder = await holdWriteLock(dbPath);
  t.after(() => holder.kill());
  const run = startBin(BIN.migrate, [], { env: { SVC_DB_PATH: dbPath } });
  t.after(() => run.kill('SIGKILL'));
  // Held until migrate gives up (a migrate that does not wait fails at once) or 1.5 s have passed,
  // well inside the 5 s it waits.
  const gaveUp = await Promise.race([run.done.then(() => true), sleep(1_500).then(() => false)]);
  assert.equal(gaveUp, false, `migrate did not wait for the lock: ${run.output.stderr}`);
  await holder.release();
  const result = await run.done;
  assert.equal(result.code, 0, result.stderr);
  assert.equal(schemaVersionOf(dbPath), latestVersion());
});
