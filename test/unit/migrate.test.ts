import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { after, test } from 'node:test';
import { openDatabase, schemaVersion } from '../../src/sqlite/database.ts';
import { DEFAULT_SQL_DIR, latestVersion, MigrationError, migrate, readMigrations } from '../../src/db/migrate.ts';

const folders: string[] = [];
after(() => folders.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A temporary sql/ folder holding `files`. */
function sqlDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sql-'));
  folders.push(dir);
  for (const [name, sql] of Object.entries(files)) writeFileSync(join(dir, name), sql);
  return dir;
}

function tables(db: DatabaseSync): string[] {
  const rows = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all();
  return rows.map((row) => String(row['name']));
}

function assertRefused(action: () => unknown, ...fragments: string[]): void {
  assert.throws(action, (error: unknown) => {
    assert.ok(error instanceof MigrationError, `expected a MigrationError, got ${String(error)}`);
    for (const fragment of fragments) assert.ok(error.message.includes(fragment), `"${error.message}" mentions "${fragment}"`);
    return true;
  });
}

// Each file appends to a log table that the first creates, so the order they ran in is recorded.
const THREE = {
  '003_third.sql': "INSERT INTO log (step) VALUES ('third');",
  '001_first.sql': "CREATE TABLE log (n INTEGER PRIMARY KEY, step TEXT NOT NULL); INSERT INTO log (step) VALUES ('first');",
  '002_second.sql': "INSERT INTO log (step) VALUES ('second');",
};

test('pending files are applied in numeric order and user_version follows', () => {
  const db = openDatabase(':memory:');
  const result = migrate(db, sqlDir(THREE));
  assert.deepEqual(result, { from: 0, to: 3, applied: ['001_first.sql', '002_second.sql', '003_third.sql'] });
  assert.equal(schemaVersion(db), 3);
  assert.deepEqual(db.prepare('SELECT step FROM log ORDER BY n').all().map((row) => row['step']), ['first', 'second', 'third']);
});

test('only files above the current version are applied', () => {
  const db = openDatabase(':memory:');
  migrate(db, sqlDir({ '001_first.sql': THREE['001_first.sql'] }));
  const result = migrate(db, sqlDir(THREE));
  assert.deepEqual(result, { from: 1, to: 3, applied: ['002_second.sql', '003_third.sql'] });
  assert.equal(db.prepare('SELECT count(*) AS n FROM log').get()?.['n'], 3);
});

test('numbers sort as numbers, not text (10 after 9)', () => {
  const files: Record<string, string> = {};
  for (let n = 1; n <= 10; n++) files[`${n}_step.sql`] = n === 1 ? THREE['001_first.sql'] : `INSERT INTO log (step) VALUES ('${n}');`;
  const db = openDatabase(':memory:');
  assert.equal(migrate(db, sqlDir(files)).applied.at(-1), '10_step.sql');
  assert.equal(db.prepare('SELECT step FROM log ORDER BY n DESC LIMIT 1').get()?.['step'], '10');
});

test('a second run applies nothing and changes nothing', () => {
  const db = openDatabase(':memory:');
  const dir = sqlDir(THREE);
  migrate(db, dir);
  const before = db.prepare('SELECT * FROM log').all();
  assert.deepEqual(migrate(db, dir), { from: 3, to: 3, applied: [] });
  assert.deepEqual(db.prepare('SELECT * FROM log').all(), before);
});

test('a database newer than the newest file is refused and left alone', () => {
  const db = openDatabase(':memory:');
  db.exec('CREATE TABLE future (x); PRAGMA user_version = 7');
  assertRefused(() => migrate(db, sqlDir(THREE)), 'version 7', 'newest migration (3)');
  assert.equal(schemaVersion(db), 7);
  assert.deepEqual(tables(db), ['future']);
});

test('a gap in the numbers is refused before anything runs', () => {
  const db = openDatabase(':memory:');
  const dir = sqlDir({ '001_first.sql': THREE['001_first.sql'], '003_third.sql': THREE['003_third.sql'] });
  assertRefused(() => migrate(db, dir), 'migration 2 is missing', '003_third.sql');
  assert.equal(schemaVersion(db), 0);
  assert.deepEqual(tables(db), []);
});

test('a missing first file is a gap too', () => {
  assertRefused(() => readMigrations(sqlDir({ '002_second.sql': '' })), 'migration 1 is missing');
});

test('duplicate numbers are refused, however they are written', () => {
  const db = openDatabase(':memory:');
  const dir = sqlDir({ ...THREE, '02_again.sql': 'CREATE TABLE again (x);' });
  assertRefused(() => migrate(db, dir), 'duplicate migration number 2');
  assert.equal(schemaVersion(db), 0);
  assert.deepEqual(tables(db), []);
});

test('number 0 and badly named .sql files are refused; other files are ignored', () => {
  assertRefused(() => readMigrations(sqlDir({ '000_zero.sql': '', '001_first.sql': '' })), '000_zero.sql', 'numbered from 1');
  assertRefused(() => readMigrations(sqlDir({ 'init.sql': '' })), 'init.sql', 'NNN_description.sql');
  const withNotes = sqlDir({ '001_first.sql': '', 'README.md': '# notes', '002_x.sql.bak': '' });
  assert.deepEqual(readMigrations(withNotes).map((m) => m.file), ['001_first.sql']);
});

test('a failing file is rolled back whole and named with SQLite\'s message', () => {
  const db = openDatabase(':memory:');
  const dir = sqlDir({
    '001_first.sql': THREE['001_first.sql'],
    '002_broken.sql': "CREATE TABLE half_done (x); INSERT INTO log (step) VALUES ('second');\nCREATE TABLE oops (;",
    '003_third.sql': THREE['003_third.sql'],
  });
  assertRefused(() => migrate(db, dir), '002_broken.sql', 'rolled back', 'syntax error');
  assert.equal(schemaVersion(db), 1, 'the version stays at the last good file');
  assert.deepEqual(tables(db), ['log'], 'the table the failing file created is gone');
  assert.equal(db.prepare('SELECT count(*) AS n FROM log').get()?.['n'], 1, 'its insert is gone');
  assert.equal(db.isTransaction, false);
  // Once the file is fixed, a new run picks up where the last one stopped.
  writeFileSync(join(dir, '002_broken.sql'), THREE['002_second.sql']);
  assert.deepEqual(migrate(db, dir).applied, ['002_broken.sql', '003_third.sql']);
});

test('the new user_version is in the same transaction as the file (a failed commit undoes both)', () => {
  const db = openDatabase(':memory:');
  // Every statement succeeds, PRAGMA user_version included; only COMMIT fails, on the deferred foreign key.
  const dir = sqlDir({
    '001_parent.sql': 'CREATE TABLE parent (id INTEGER PRIMARY KEY);',
    '002_orphan.sql':
      'CREATE TABLE child (parent_id INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);\n' +
      'INSERT INTO child (parent_id) VALUES (42);',
  });
  assertRefused(() => migrate(db, dir), '002_orphan.sql', 'FOREIGN KEY constraint failed');
  assert.equal(schemaVersion(db), 1);
  assert.deepEqual(tables(db), ['parent']);
});

test('the package\'s own sql/ folder is numbered without gaps and applies to an empty database', () => {
  const migrations = readMigrations(DEFAULT_SQL_DIR);
  assert.deepEqual(migrations.map((m) => m.version), migrations.map((_, index) => index + 1));
  const db = openDatabase(':memory:');
  assert.equal(migrate(db).to, latestVersion());
  for (const table of ['products', 'workspaces']) assert.ok(tables(db).includes(table), table);
});
