import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, test } from 'node:test';
import { latestVersion } from '../../src/db/migrate.ts';
import { BIN, linesOf, type RunResult, runBin, startBin } from '../support/cli.ts';
import { migratedDatabaseFile } from '../support/server.ts';

const folders: string[] = [];
const children: ReturnType<typeof startBin>[] = [];
after(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-serve-'));
  folders.push(dir);
  return dir;
}

const serveAt = (dbPath: string): Promise<RunResult> => runBin(BIN.serve, [], { env: { SVC_PORT: '0', SVC_DB_PATH: dbPath } });

function assertRefusedWithAdvice(result: RunResult): void {
  assert.notEqual(result.code, 0);
  assert.match(result.stderr, /run `node bin\/migrate\.js`/);
  assert.doesNotMatch(result.stdout, /listening/);
}

/** A database in SQLite's default journal mode with `sql` run in it: what an old or foreign tool leaves. */
function databaseWith(sql: string): string {
  const dbPath = join(tempDir(), 'app.db');
  const db = new DatabaseSync(dbPath);
  db.exec(sql);
  db.close();
  return dbPath;
}

test('serve refuses a missing file and does not create it or its folder', async () => {
  const folder = join(tempDir(), 'data');
  const dbPath = join(folder, 'app.db');
  const result = await serveAt(dbPath);
  assertRefusedWithAdvice(result);
  assert.match(result.stderr, /does not exist/);
  assert.equal(existsSync(folder), false);
});

test('serve refuses an empty (0 byte) file and leaves it at 0 bytes', async () => {
  const dbPath = join(tempDir(), 'app.db');
  writeFileSync(dbPath, '');
  const result = await serveAt(dbPath);
  assertRefusedWithAdvice(result);
  assert.match(result.stderr, /schema version 0, this build needs/);
  assert.equal(readFileSync(dbPath).length, 0);
  assert.equal(existsSync(`${dbPath}-wal`), false);
});

test('serve refuses a version 0 database that has tables, byte for byte unchanged', async () => {
  const dbPath = databaseWith('CREATE TABLE products (id INTEGER PRIMARY KEY); INSERT INTO products VALUES (1);');
  const bytes = readFileSync(dbPath);
  assertRefusedWithAdvice(await serveAt(dbPath));
  assert.deepEqual(readFileSync(dbPath), bytes);
});

test('serve refuses a migrated database whose version is behind, or ahead of, this build', async () => {
  const latest = latestVersion();
  for (const version of [latest - 1, latest + 1]) {
    const { dir, dbPath } = migratedDatabaseFile();
    folders.push(dir);
    const db = new DatabaseSync(dbPath);
    db.exec(`PRAGMA user_version = ${version}`);
    db.close();
    const bytes = readFileSync(dbPath);
    const result = await serveAt(dbPath);
    assertRefusedWithAdvice(result);
    assert.match(result.stderr, new RegExp(`schema version ${version}, this build needs ${latest}`));
    assert.deepEqual(readFileSync(dbPath), bytes);
  }
});

test('serve refuses a file that is not a SQLite database, unchanged', async () => {
  const dbPath = join(tempDir(), 'app.db');
  writeFileSync(dbPath, 'this is not a database, just some text that is long enough to have a header'.repeat(10));
  const bytes = readFileSync(dbPath);
  const result = await serveAt(dbPath);
  assertRefusedWithAdvice(result);
  assert.match(result.stderr, /cannot be read: file is not a database/);
  assert.deepEqual(readFileSync(dbPath), bytes);
});

/** Waits until `child` logs a line matching `pattern`, or fails when it exits or takes too long. */
async function waitForLine(child: ReturnType<typeof startBin>, pattern: RegExp): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const line = linesOf(child.output.stdout).find((text) => pattern.test(text));
    if (line !== undefined) return JSON.parse(line) as Record<string, unknown>;
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`no line matching ${pattern}; exit ${child.exitCode}; stdout ${child.output.stdout}; stderr ${child.output.stderr}`);
}

test('serve on a migrated database logs one JSON start-up line with its URL, answers, and exits 0 on SIGTERM', async () => {
  const { dir, dbPath } = migratedDatabaseFile();
  folders.push(dir);
  const child = startBin(BIN.serve, [], { env: { SVC_PORT: '0', SVC_DB_PATH: dbPath } });
  children.push(child);
  const started = await waitForLine(child, /listening on/);
  assert.equal(started['level'], 30);
  assert.match(String(started['url']), /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(started['msg'], `listening on ${String(started['url'])}`);
  assert.equal(started['pid'], child.pid);

  const ping = await fetch(`${String(started['url'])}/api/ping`);
  assert.equal(ping.status, 200);
  await ping.arrayBuffer();

  child.kill('SIGTERM');
  const result = await child.done;
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stderr, '');
  for (const line of linesOf(result.stdout)) JSON.parse(line); // every stdout line is one JSON object
  assert.equal(linesOf(result.stdout).filter((line) => line.includes('listening on')).length, 1);
});
