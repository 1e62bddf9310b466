import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, test } from 'node:test';
import { migrationSummary } from '../../src/cli/migrate.ts';
import { latestVersion, readMigrations } from '../../src/db/migrate.ts';
import { BIN, linesOf, type RunResult, runBin, schemaVersionOf } from '../support/cli.ts';

const folders: string[] = [];
after(() => folders.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-migrate-'));
  folders.push(dir);
  return dir;
}

/** The one JSON line migrate logs on stdout. */
function logLine(result: RunResult): { level: number; msg: string } & Record<string, unknown> {
  const lines = linesOf(result.stdout);
  assert.equal(lines.length, 1, `one line on stdout: ${result.stdout}`);
  return JSON.parse(lines[0] ?? '') as { level: number; msg: string };
}

const migrateAt = (dbPath: string, args: string[] = []): Promise<RunResult> => runBin(BIN.migrate, args, { env: { SVC_DB_PATH: dbPath } });
const LATEST = latestVersion();
const ALL_FILES = readMigrations(join(import.meta.dirname, '../../sql')).map((m) => m.file);

test('migrate creates the file and its folders, then a second run says it is already current', async () => {
  const dbPath = join(tempDir(), 'nested', 'deeper', 'app.db');
  const first = await migrateAt(dbPath);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stderr, '');
  const applied = logLine(first);
  assert.equal(applied.level, 30);
  assert.match(applied.msg, new RegExp(`migrated .* from version 0 to ${LATEST}`));
  assert.deepEqual(applied['applied'], ALL_FILES);
  assert.equal(schemaVersionOf(dbPath), LATEST);

  const bytes = readFileSync(dbPath);
  const second = await migrateAt(dbPath);
  assert.equal(second.code, 0, second.stderr);
  assert.match(logLine(second).msg, new RegExp(`already current \\(version ${LATEST}\\)`));
  assert.deepEqual(readFileSync(dbPath), bytes, 'the second run changed no byte');
});

test('--status on a missing file reports every file pending and creates nothing', async () => {
  const folder = join(tempDir(), 'absent');
  const dbPath = join(folder, 'app.db');
  const result = await migrateAt(dbPath, ['--status']);
  assert.equal(result.code, 0, result.stderr);
  const line = logLine(result);
  assert.deepEqual([line['current'], line['latest'], line['pending']], [0, LATEST, ALL_FILES]);
  assert.match(line.msg, new RegExp(`version 0, newest is ${LATEST}: ${ALL_FILES.length} pending`));
  assert.equal(existsSync(folder), false, 'neither the file nor its folder was created');
});

test('--status on a current database says so and changes nothing', async () => {
  const dbPath = join(tempDir(), 'app.db');
  assert.equal((await migrateAt(dbPath)).code, 0);
  const bytes = readFileSync(dbPath);
  const result = await migrateAt(dbPath, ['--status']);
  assert.equal(result.code, 0, result.stderr);
  const line = logLine(result);
  assert.deepEqual([line['current'], line['pending']], [LATEST, []]);
  assert.match(line.msg, /: current$/);
  assert.deepEqual(readFileSync(dbPath), bytes);
});

test('a database newer than this build is refused, byte for byte unchanged', async () => {
  const dbPath = join(tempDir(), 'app.db');
  // Written in SQLite's default rollback-journal mode: opening it for writing in WAL mode would alter it.
  const db = new DatabaseSync(dbPath);
  db.exec(`CREATE TABLE from_the_future (x); PRAGMA user_version = ${LATEST + 1}`);
  db.close();
  const bytes = readFileSync(dbPath);
  for (const args of [[], ['--status']]) {
    const result = await migrateAt(dbPath, args);
    if (args.length === 0) {
      assert.equal(result.code, 1);
      assert.match(result.stderr, new RegExp(`^migration refused: database is at version ${LATEST + 1}, newer than the newest migration \\(${LATEST}\\)`));
      assert.equal(linesOf(result.stderr).length, 1);
    } else {
      assert.equal(result.code, 0, result.stderr);
      assert.match(logLine(result).msg, /newer than this build/);
    }
    assert.deepEqual(readFileSync(dbPath), bytes);
    assert.equal(existsSync(`${dbPath}-wal`), false);
  }
});

test('an empty (0 byte) file is a database at version 0 and gets migrated', async () => {
  const dir = tempDir();
  const dbPath = join(dir, 'empty.db');
  new DatabaseSync(dbPath).close(); // SQLite leaves a new, unused database at 0 bytes
  assert.equal(readFileSync(dbPath).length, 0);
  const result = await migrateAt(dbPath);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(schemaVersionOf(dbPath), LATEST);
});

test('two migrations started at the same moment both exit 0, each file is applied once, and each says what it did', async () => {
  // Each file takes the write lock on its own, so two migrators may share the files between them;
  // several rounds, since two processes may or may not overlap exactly (both switching a new file to
  // WAL at once made one fail with "database is locked" about once in 30 rounds).
  for (let round = 0; round < 8; round++) {
    const dbPath = join(tempDir(), 'fresh', 'app.db');
    const results = await Promise.all([migrateAt(dbPath), migrateAt(dbPath)]);
    for (const result of results) assert.equal(result.code, 0, `exit 0, stderr: ${result.stderr}`);
    const lines = results.map(logLine);
    const applied = lines.flatMap((line) => (line['applied'] as string[] | undefined) ?? []);
    assert.deepEqual(applied.sort(), ALL_FILES, lines.map((line) => line.msg).join(' | '));
    for (const line of lines) {
      const own = (line['applied'] as string[] | undefined)?.length ?? 0;
      if (own === 0) assert.match(line.msg, new RegExp(`already current \\(version ${LATEST}\\)$`));
      else {
        // It may have started once the other had applied some files: its own start is in the line.
        const from = Number(/ from version (\d+) to /.exec(line.msg)?.[1]);
        const byOthers = LATEST - from - own;
        const shared = byOthers > 0 ? `; ${byOthers} of the files were applied meanwhile by another migrator` : '';
        assert.ok(byOthers >= 0, line.msg);
        assert.match(line.msg, new RegExp(`^migrated .*/app\\.db from version ${from} to ${LATEST}${shared}$`));
      }
    }
    assert.equal(schemaVersionOf(dbPath), LATEST);
  }
});

test('the line of a migrator that shared the files with another says how many the other applied', () => {
  const result = { from: 0, to: 11, applied: ['002_b.sql', '005_e.sql', '006_f.sql'] };
  assert.equal(migrationSummary('app.db', result), 'migrated app.db from version 0 to 11; 8 of the files were applied meanwhile by another migrator');
  assert.equal(migrationSummary('app.db', { ...result, from: 8 }), 'migrated app.db from version 8 to 11');
  assert.equal(migrationSummary('app.db', { from: 3, to: 11, applied: [] }), 'database app.db is already current (version 11)');
});

test('an unknown argument is refused with the usage', async () => {
  const dbPath = join(tempDir(), 'app.db');
  const result = await migrateAt(dbPath, ['--force']);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /unknown argument --force; usage: node bin\/migrate\.js \[--status\]/);
  assert.equal(existsSync(dbPath), false);
});

test('an invalid variable stops migrate with one line before it touches anything', async () => {
  const dbPath = join(tempDir(), 'app.db');
  const result = await runBin(BIN.migrate, [], { env: { SVC_DB_PATH: dbPath, SVC_DB_DURABILITY: 'sometimes' } });
  assert.equal(result.code, 1);
  assert.deepEqual(linesOf(result.stderr), ['invalid SVC_DB_DURABILITY="sometimes": expected one of full, normal']);
  assert.equal(existsSync(dbPath), false);
});
